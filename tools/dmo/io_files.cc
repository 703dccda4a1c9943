#include "io_files.h"

#include <fmt/format.h>

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "dmo/error.h"
#include "dmo/report/plan_report.h"
#include "dmo/runtime/input_pattern.h"

namespace dmo::cli {

std::vector<uint8_t> load_input(const Graph& graph, const std::string& path, uint32_t seed) {
  std::vector<uint8_t> bytes;
  if (path.empty()) {
    bytes = pattern_input(graph.main(), seed);
  } else {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(fmt::format("{}: cannot open input file", path));
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  int64_t want = 0;
  for (int32_t t : graph.main().inputs) want += graph.main().tensors[static_cast<size_t>(t)].byte_size;
  if (static_cast<int64_t>(bytes.size()) != want) {
    throw Error(fmt::format("{}: {} bytes, but the inputs of {} take {}", path.empty() ? "pattern" : path, bytes.size(),
                            graph.source, want));
  }
  return bytes;
}

void write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw Error(fmt::format("{}: cannot create file", path));
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw Error(fmt::format("{}: write failed", path));
}

void write_text_file(const std::string& path, const std::string& text) {
  write_file(path, std::vector<uint8_t>(text.begin(), text.end()));
}

TensorPlacement read_placement(const std::string& path, const Subgraph& subgraph) {
  std::ifstream in(path);
  if (!in) throw Error(fmt::format("{}: cannot open plan file", path));
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{}: not JSON: {}", path, e.what()));
  }
  if (!j.contains("arena_bytes") || !j.contains("offsets") || !j["offsets"].is_array() ||
      !j["arena_bytes"].is_number_integer()) {
    throw Error(fmt::format("{}: expected {{\"arena_bytes\": N, \"offsets\": [...]}}", path));
  }
  TensorPlacement placement;
  placement.arena_size = j["arena_bytes"].get<int64_t>();
  if (j["offsets"].size() != subgraph.tensors.size()) {
    throw Error(fmt::format("{}: {} offsets for {} tensors", path, j["offsets"].size(), subgraph.tensors.size()));
  }
  for (const auto& offset : j["offsets"]) {
    if (!offset.is_number_integer()) throw Error(fmt::format("{}: offsets must be integers", path));
    placement.offsets.push_back(offset.get<int64_t>());
  }
  if (j.contains("descending_ops")) {
    if (!j["descending_ops"].is_array()) throw Error(fmt::format("{}: descending_ops must be a list of op indices", path));
    for (const auto& op : j["descending_ops"]) {
      if (!op.is_number_integer()) throw Error(fmt::format("{}: descending_ops must be integers", path));
      placement.descending_ops.push_back(op.get<int32_t>());
    }
  }
  return placement;
}

TensorPlacement default_placement(const Graph& graph) {
  PlanReport report = make_plan_report(graph);
  return placement_from_plan(graph.main(), report.problem, report.dmo);
}

}  // namespace dmo::cli

#include "dmo/pipeline/placement_file.h"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "dmo/error.h"

namespace dmo {

TensorPlacement read_placement_file(const std::string& path, const Subgraph& subgraph) {
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

}  // namespace dmo

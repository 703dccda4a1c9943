#include "dmo/pipeline/placement_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "dmo/error.h"
#include "dmo/model/lifetime.h"
#include "dmo/model/model_timeline.h"
#include "dmo/plan/memory_problem.h"

namespace dmo {

namespace {

// An integer field within [low, high], or an error naming the file and field.
int64_t integer_in(const nlohmann::json& value, const std::string& path, const std::string& what, int64_t low,
                   int64_t high) {
  if (value.is_number_unsigned() && value.get<uint64_t>() > static_cast<uint64_t>(high)) {
    throw Error(fmt::format("{}: {} {} is above {}", path, what, value.get<uint64_t>(), high));
  }
  const auto v = value.get<int64_t>();
  if (v < low || v > high) throw Error(fmt::format("{}: {} {} is outside {}..{}", path, what, v, low, high));
  return v;
}

// "tensor 3 'x'" in subgraph 0; "tensor 9 (subgraph 1 tensor 2) 'y'" past it.
std::string tensor_label(const Graph& graph, int32_t flat) {
  const SubgraphIndex at = locate_flat_tensor(graph, flat);
  const std::string& name = flat_tensor(graph, flat).name;
  if (at.subgraph == 0) return fmt::format("tensor {} '{}'", flat, name);
  return fmt::format("tensor {} (subgraph {} tensor {}) '{}'", flat, at.subgraph, at.index, name);
}

}  // namespace

TensorPlacement read_placement_file(const std::string& path, const Graph& graph) {
  const Subgraph& subgraph = graph.main();
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw Error(fmt::format("{}: is a directory, not a plan file", path));
  std::ifstream in(path);
  if (!in) throw Error(fmt::format("{}: cannot open plan file", path));
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{}: not JSON: {}", path, e.what()));
  }
  if (!j.is_object()) throw Error(fmt::format("{}: expected {{\"arena_bytes\": N, \"offsets\": [...]}}", path));
  // A misspelt field (say "descending_op") would otherwise be ignored silently.
  for (const auto& field : j.items()) {
    if (field.key() != "arena_bytes" && field.key() != "offsets" && field.key() != "descending_ops") {
      throw Error(fmt::format("{}: unknown field '{}' (a plan file has arena_bytes, offsets, descending_ops)", path,
                              field.key()));
    }
  }
  if (!j.contains("arena_bytes") || !j.contains("offsets") || !j["offsets"].is_array() ||
      !j["arena_bytes"].is_number_integer()) {
    throw Error(fmt::format("{}: expected {{\"arena_bytes\": N, \"offsets\": [...]}}", path));
  }
  TensorPlacement placement;
  // Larger arenas than TFLM can address are refused before anything is allocated.
  placement.arena_size = integer_in(j["arena_bytes"], path, "arena_bytes", 0, kMaxArenaBytes);
  // Offsets of subgraph 0's tensors, or, for a model of several subgraphs
  // (planned whole, as `dmo plan --json` writes its offsets), of every
  // subgraph's tensors in flat order.
  const size_t offsets = j["offsets"].size();
  const size_t all = graph.total_tensor_count();
  if (offsets != subgraph.tensors.size() && !(graph.subgraphs.size() > 1 && offsets == all)) {
    if (graph.subgraphs.size() == 1) {
      throw Error(fmt::format("{}: {} offsets for {} tensors", path, offsets, subgraph.tensors.size()));
    }
    // Missing entries (fewer than every subgraph's) or extra ones (more).
    throw Error(fmt::format("{}: {} offsets for {} tensors of subgraph 0 or {} of all {} subgraphs: {} {}", path,
                            offsets, subgraph.tensors.size(), all, graph.subgraphs.size(),
                            offsets > all ? offsets - all : all - offsets, offsets > all ? "extra" : "missing"));
  }
  for (const auto& offset : j["offsets"]) {
    if (!offset.is_number_integer()) throw Error(fmt::format("{}: offsets must be integers", path));
    const auto t = static_cast<int32_t>(placement.offsets.size());
    const Tensor& tensor = flat_tensor(graph, t);
    const int64_t bytes = tensor.byte_size;
    const std::string which = tensor_label(graph, t);
    const int64_t at = integer_in(offset, path, fmt::format("offset of tensor {}", t), -1, kMaxArenaBytes);
    if (at >= 0 && at > placement.arena_size - bytes) {
      throw Error(fmt::format("{}: {} ({} bytes at offset {}) does not fit in arena_bytes {}", path, which, bytes, at,
                              placement.arena_size));
    }
    if (at < 0 && tflm_plans_tensor(tensor)) {
      throw Error(fmt::format("{}: {} ({} bytes) has no offset, but the plan must place it", path, which, bytes));
    }
    placement.offsets.push_back(at);
  }
  if (j.contains("descending_ops")) {
    if (!j["descending_ops"].is_array()) throw Error(fmt::format("{}: descending_ops must be a list of op indices", path));
    for (const auto& op : j["descending_ops"]) {
      if (!op.is_number_integer()) throw Error(fmt::format("{}: descending_ops must be integers", path));
      const auto ops = static_cast<int64_t>(subgraph.ops.size());
      placement.descending_ops.push_back(
          static_cast<int32_t>(integer_in(op, path, "descending op", 0, std::max<int64_t>(ops - 1, 0))));
    }
  }
  return placement;
}

}  // namespace dmo

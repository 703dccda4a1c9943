#include "dmo/pipeline/placement_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "dmo/error.h"
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

}  // namespace

TensorPlacement read_placement_file(const std::string& path, const Subgraph& subgraph) {
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
  if (j["offsets"].size() != subgraph.tensors.size()) {
    throw Error(fmt::format("{}: {} offsets for {} tensors", path, j["offsets"].size(), subgraph.tensors.size()));
  }
  for (const auto& offset : j["offsets"]) {
    if (!offset.is_number_integer()) throw Error(fmt::format("{}: offsets must be integers", path));
    const size_t t = placement.offsets.size();
    const int64_t bytes = subgraph.tensors[t].byte_size;
    const int64_t at = integer_in(offset, path, fmt::format("offset of tensor {}", t), -1, kMaxArenaBytes);
    if (at >= 0 && at > placement.arena_size - bytes) {
      throw Error(fmt::format("{}: tensor {} '{}' ({} bytes at offset {}) does not fit in arena_bytes {}", path, t,
                              subgraph.tensors[t].name, bytes, at, placement.arena_size));
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

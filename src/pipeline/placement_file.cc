#include "dmo/pipeline/placement_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>

#include "dmo/error.h"
#include "dmo/model/lifetime.h"
#include "dmo/model/model_timeline.h"
#include "dmo/model/op_order.h"
#include "dmo/plan/memory_problem.h"
#include "dmo/schedule/schedule.h"
#include "dmo/transform/concat_in_place.h"
#include "dmo/transform/split_schedule.h"

namespace dmo {

namespace {

// An integer field within [low, high], or an error naming the file and field.
// A number beyond uint64 parses as a float: refused, never converted.
int64_t integer_in(const nlohmann::json& value, const std::string& path, const std::string& what, int64_t low,
                   int64_t high) {
  if (!value.is_number_integer()) throw Error(fmt::format("{}: {} {} is not an integer", path, what, value.dump()));
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

// The "concat_in_place" list: CONCATENATION and PACK ops whose inputs are
// written in place, each checked as dmo's planner would.
std::vector<int32_t> concat_in_place_ops_of(const nlohmann::json& list, const std::string& path, const Graph& graph) {
  if (!list.is_array()) throw Error(fmt::format("{}: concat_in_place must be a list of op indices", path));
  std::vector<int32_t> ops;
  for (const auto& op : list) {
    if (!op.is_number_integer()) throw Error(fmt::format("{}: concat_in_place must be integers", path));
    ops.push_back(static_cast<int32_t>(op.get<int64_t>()));
  }
  try {
    concat_in_place_views(graph, ops);
  } catch (const Error& e) {
    throw Error(fmt::format("{}: concat_in_place: {}", path, e.what()));
  }
  return ops;
}

// The "order" list: every op of subgraph 0 once, in a topological order.
std::vector<int32_t> op_order_of(const nlohmann::json& list, const std::string& path, const Graph& graph) {
  if (!list.is_array()) throw Error(fmt::format("{}: order must be a list of op indices", path));
  std::vector<int32_t> order;
  const auto ops = static_cast<int64_t>(graph.main().ops.size());
  for (const auto& op : list) {
    if (!op.is_number_integer()) throw Error(fmt::format("{}: order must be integers", path));
    order.push_back(static_cast<int32_t>(integer_in(op, path, "order: op", 0, std::max<int64_t>(ops - 1, 0))));
  }
  const std::string problem = op_order_problem(graph, order);
  if (!problem.empty()) throw Error(fmt::format("{}: order: {}", path, problem));
  return order;
}

// The "split" list: stages as `dmo plan --json` writes them.
std::vector<SplitStage> split_stages_of(const nlohmann::json& list, const std::string& path, const Graph& graph) {
  if (!list.is_array()) throw Error(fmt::format("{}: split must be a list of stages", path));
  std::vector<SplitStage> stages;
  for (size_t i = 0; i < list.size(); ++i) {
    const nlohmann::json& entry = list[i];
    const std::string where = fmt::format("{}: split stage {}", path, i);
    const std::string form = R"({"ops": [FIRST, LAST], "axis": "height", "tiles": N})";
    if (!entry.is_object()) throw Error(fmt::format("{}: expected {}", where, form));
    for (const auto& field : entry.items()) {
      if (field.key() != "ops" && field.key() != "axis" && field.key() != "tiles" && field.key() != "column_tiles" &&
          field.key() != "extra_macs" && field.key() != "overlap") {
        throw Error(fmt::format(
            "{}: unknown field '{}' (a stage has ops, axis, tiles, column_tiles, extra_macs, overlap)", where,
            field.key()));
      }
    }
    const nlohmann::json& ops = entry.contains("ops") ? entry["ops"] : nlohmann::json();
    if (!ops.is_array() || ops.size() != 2 || !ops[0].is_number_integer() || !ops[1].is_number_integer() ||
        !entry.contains("tiles") || !entry["tiles"].is_number_integer()) {
      throw Error(fmt::format("{}: expected {}", where, form));
    }
    if (entry.contains("axis") && entry["axis"] != "height" && entry["axis"] != "height and width") {
      throw Error(fmt::format("{}: axis {}: dmo splits along the height, or the height and width", where,
                              entry["axis"].dump()));
    }
    if (entry.contains("extra_macs") && !entry["extra_macs"].is_number_integer()) {
      throw Error(fmt::format("{}: extra_macs must be an integer", where));
    }
    const int64_t limit = std::numeric_limits<int32_t>::max();
    SplitStage stage;
    stage.first_op = static_cast<int32_t>(integer_in(ops[0], path, fmt::format("split stage {} first op", i), 0, limit));
    stage.last_op = static_cast<int32_t>(integer_in(ops[1], path, fmt::format("split stage {} last op", i), 0, limit));
    stage.tiles = static_cast<int32_t>(integer_in(entry["tiles"], path, fmt::format("split stage {} tiles", i), 1, limit));
    if (entry.contains("column_tiles")) {
      stage.column_tiles = static_cast<int32_t>(
          integer_in(entry["column_tiles"], path, fmt::format("split stage {} column_tiles", i), 1, limit));
    }
    if ((stage.column_tiles > 1) != (entry.contains("axis") && entry["axis"] == "height and width")) {
      throw Error(fmt::format("{}: column_tiles above 1 go with axis \"height and width\", and only they", where));
    }
    stages.push_back(stage);
  }
  // The stages' chains, tile counts and disjointness, named in the model's terms.
  try {
    split_schedule(graph, stages);
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {}", path, e.what()));
  }
  return stages;
}

}  // namespace

PlacementFile read_placement_file(const std::string& path, const Graph& graph) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw Error(fmt::format("{}: is a directory, not a plan file", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot open plan file", path));
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  return parse_placement_file(text, path, graph);
}

PlacementFile parse_placement_file(std::string_view text, const std::string& path, const Graph& graph) {
  const Subgraph& subgraph = graph.main();
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{}: not JSON: {}", path, e.what()));
  }
  if (!j.is_object()) throw Error(fmt::format("{}: expected {{\"arena_bytes\": N, \"offsets\": [...]}}", path));
  // A misspelt field (say "descending_op") would otherwise be ignored silently.
  for (const auto& field : j.items()) {
    if (field.key() != "arena_bytes" && field.key() != "offsets" && field.key() != "descending_ops" &&
        field.key() != "split" && field.key() != "concat_in_place" && field.key() != "order") {
      throw Error(fmt::format("{}: unknown field '{}' (a plan file has arena_bytes, offsets, descending_ops, split, "
                              "concat_in_place, order)", path,
                              field.key()));
    }
  }
  if (!j.contains("arena_bytes") || !j.contains("offsets") || !j["offsets"].is_array() ||
      !j["arena_bytes"].is_number_integer()) {
    throw Error(fmt::format("{}: expected {{\"arena_bytes\": N, \"offsets\": [...]}}", path));
  }
  PlacementFile file;
  if (j.contains("split")) file.split = split_stages_of(j["split"], path, graph);
  if (j.contains("concat_in_place")) file.concat_in_place = concat_in_place_ops_of(j["concat_in_place"], path, graph);
  if (!file.split.empty() && !file.concat_in_place.empty()) {
    throw Error(fmt::format("{}: concat_in_place cannot be combined with split stages", path));
  }
  if (j.contains("order")) {
    file.order = op_order_of(j["order"], path, graph);
    if (!file.split.empty()) throw Error(fmt::format("{}: order cannot be combined with split stages", path));
  }
  // A split stage's intermediates take only their largest band.
  const Schedule schedule = file.split.empty() ? Schedule{} : split_schedule(graph, file.split);
  TensorPlacement& placement = file.placement;
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
    // Split stages run in subgraph 0 alone, where flat and local indices agree.
    const BandBuffer* band = band_buffer_of(schedule, t);
    const int64_t bytes = band ? band_bytes(tensor, *band) : tensor.byte_size;
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
  if (!file.order.empty()) {
    // From here on the reordered graph's indices.
    placement.descending_ops = reordered_op_indices(file.order, placement.descending_ops);
    file.concat_in_place = reordered_op_indices(file.order, file.concat_in_place);
  }
  return file;
}

PlacementFile read_placement_file(const std::string& path, const Graph& graph, const SplitRequest& split) {
  PlacementFile file = read_placement_file(path, graph);
  if (!file.order.empty() && split.method != SplitMethod::kNone) {
    throw Error(fmt::format("{}: the plan file runs its ops in its own order; --split runs op ranges of file order",
                            path));
  }
  if (!file.split.empty() && split.method == SplitMethod::kManual) {
    throw Error(fmt::format("{}: the plan file names its split stages; --split would run others", path));
  }
  if (file.split.empty()) file.split = split.stages;
  return file;
}

}  // namespace dmo

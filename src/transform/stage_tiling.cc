#include "dmo/transform/stage_tiling.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "dmo/error.h"
#include "dmo/transform/receptive_field.h"

namespace dmo {

namespace {

bool contains(const std::vector<int32_t>& list, int32_t value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

// Why op `op` does not pass its output 0 to op + 1 alone, as its input 0;
// empty when it does.
std::string chain_link_problem(const Graph& graph, int32_t op) {
  const Subgraph& sg = graph.main();
  const Op& producer = sg.ops[static_cast<size_t>(op)];
  const Op& consumer = sg.ops[static_cast<size_t>(op + 1)];
  if (producer.outputs.size() != 1) return fmt::format("op {} has {} outputs", op, producer.outputs.size());
  const int32_t link = producer.outputs[0];
  if (consumer.inputs.empty() || consumer.inputs[0] != link) {
    return fmt::format("op {} does not read tensor {} as its input 0: the ops are not adjacent in a chain", op + 1,
                       link);
  }
  if (contains(sg.outputs, link)) return fmt::format("tensor {} is a graph output", link);
  for (size_t i = 0; i < sg.ops.size(); ++i) {
    const auto reader = static_cast<int32_t>(i);
    const std::vector<int32_t>& inputs = sg.ops[i].inputs;
    const auto uses = std::count(inputs.begin(), inputs.end(), link);
    if (uses > (reader == op + 1 ? 1 : 0)) {
      return fmt::format("tensor {} is also read by op {} ({}): a branch", link, reader, sg.ops[i].name());
    }
  }
  return {};
}

void require_chain_link(const Graph& graph, int32_t op) {
  const std::string problem = chain_link_problem(graph, op);
  if (problem.empty()) return;
  const Subgraph& sg = graph.main();
  throw Error(fmt::format("{}: split: op {} ({}) and op {} ({}): {}", graph.source, op,
                          sg.ops[static_cast<size_t>(op)].name(), op + 1, sg.ops[static_cast<size_t>(op + 1)].name(),
                          problem));
}

}  // namespace

bool links_chain(const Graph& graph, int32_t op) {
  const auto op_count = static_cast<int32_t>(graph.main().ops.size());
  return op >= 0 && op + 1 < op_count && chain_link_problem(graph, op).empty();
}

bool tiles_along_height(const Graph& graph, int32_t op) {
  const Subgraph& sg = graph.main();
  if (op < 0 || op >= static_cast<int32_t>(sg.ops.size())) return false;
  return splits_along_height(static_cast<OpKind>(sg.ops[static_cast<size_t>(op)].builtin_code)) &&
         row_window(sg, op).has_value();
}

StageTiling tile_stage(const Graph& graph, const SplitStage& stage) {
  const Subgraph& sg = graph.main();
  const auto op_count = static_cast<int32_t>(sg.ops.size());
  auto fail = [&](const std::string& what) {
    throw Error(fmt::format("{}: split {}-{}:{}: {}", graph.source, stage.first_op, stage.last_op, stage.tiles, what));
  };
  if (graph.subgraphs.size() != 1) fail(fmt::format("the model has {} subgraphs; dmo splits models of one", graph.subgraphs.size()));
  if (stage.first_op < 0 || stage.last_op >= op_count) fail(fmt::format("subgraph 0 has ops 0-{}", op_count - 1));
  if (stage.first_op > stage.last_op) fail("the first op comes after the last");
  if (stage.tiles < 1) fail("a stage needs at least one tile");
  StageTiling tiling;
  tiling.stage = stage;
  std::vector<RowWindow> windows;
  for (int32_t op = stage.first_op; op <= stage.last_op; ++op) {
    const Op& o = sg.ops[static_cast<size_t>(op)];
    std::string why;
    std::optional<RowWindow> window = row_window(sg, op, &why);
    if (!window) throw Error(fmt::format("{}: split: op {} ({}) cannot be split along its height: {}", graph.source, op, o.name(), why));
    if (!splits_along_height(static_cast<OpKind>(o.builtin_code))) {
      throw Error(fmt::format("{}: split: op {} ({}) cannot be split along its height: its kernel computes its whole "
                              "output at once",
                              graph.source, op, o.name()));
    }
    if (op < stage.last_op) require_chain_link(graph, op);
    windows.push_back(*window);
    tiling.outputs.push_back(o.outputs[0]);
  }
  const int32_t height = windows.back().output_height;
  if (stage.tiles > height) {
    throw Error(fmt::format("{}: split: op {} ({}): {} tiles for an output of {} rows", graph.source, stage.last_op,
                            sg.ops[static_cast<size_t>(stage.last_op)].name(), stage.tiles, height));
  }
  const int32_t n = tiling.op_count();
  tiling.band_rows.assign(static_cast<size_t>(n), 0);
  for (int32_t tile = 0; tile < stage.tiles; ++tile) {
    // Even tiles: the first height % tiles of them one row longer.
    const int32_t base = height / stage.tiles, extra = height % stage.tiles;
    const int32_t begin = tile * base + std::min(tile, extra);
    std::vector<IndexRange> rows(static_cast<size_t>(n));
    rows.back() = {begin, begin + base + (tile < extra ? 1 : 0)};
    for (int32_t k = n - 1; k > 0; --k) {
      rows[static_cast<size_t>(k - 1)] = input_rows(windows[static_cast<size_t>(k)], rows[static_cast<size_t>(k)]);
      if (rows[static_cast<size_t>(k - 1)].size() == 0) {
        fail(fmt::format("tile {} of op {} reads only padding rows", tile, stage.first_op + k));
      }
    }
    for (int32_t k = 0; k < n; ++k) {
      int32_t& band = tiling.band_rows[static_cast<size_t>(k)];
      band = std::max(band, rows[static_cast<size_t>(k)].size());
    }
    tiling.rows.push_back(std::move(rows));
  }
  tiling.band_rows.back() = 0;  // the last output is stored whole
  return tiling;
}

SplitStage parse_split_spec(const std::string& spec) {
  auto fail = [&] {
    throw Error(fmt::format("--split '{}': expected FIRST-LAST:TILES (op indices and a tile count, e.g. 1-2:4)", spec));
  };
  const size_t dash = spec.find('-'), colon = spec.find(':');
  if (dash == std::string::npos || colon == std::string::npos || dash > colon) fail();
  auto number = [&](size_t from, size_t to) {
    int32_t value = 0;
    const char* first = spec.data() + from;
    const char* last = spec.data() + to;
    auto [end, ec] = std::from_chars(first, last, value);
    if (first == last || ec != std::errc() || end != last || value < 0) fail();
    return value;
  };
  SplitStage stage;
  stage.first_op = number(0, dash);
  stage.last_op = number(dash + 1, colon);
  stage.tiles = number(colon + 1, spec.size());
  if (stage.tiles < 1) {
    throw Error(fmt::format("--split '{}': a stage needs at least one tile", spec));
  }
  return stage;
}

}  // namespace dmo

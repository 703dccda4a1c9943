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
         row_window(sg, op).has_value() && column_window(sg, op).has_value();
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
  if (stage.tiles < 1 || stage.column_tiles < 1) fail("a stage needs at least one tile");
  StageTiling tiling;
  tiling.stage = stage;
  std::vector<AxisWindow> row_windows, col_windows;
  for (int32_t op = stage.first_op; op <= stage.last_op; ++op) {
    const Op& o = sg.ops[static_cast<size_t>(op)];
    std::string why;
    std::optional<AxisWindow> rows = row_window(sg, op, &why);
    std::optional<AxisWindow> cols = rows ? column_window(sg, op, &why) : std::nullopt;
    if (!rows || !cols) {
      throw Error(fmt::format("{}: split: op {} ({}) cannot be split along its height: {}", graph.source, op, o.name(), why));
    }
    if (!splits_along_height(static_cast<OpKind>(o.builtin_code))) {
      throw Error(fmt::format("{}: split: op {} ({}) cannot be split along its height: its kernel computes its whole "
                              "output at once",
                              graph.source, op, o.name()));
    }
    if (op < stage.last_op) require_chain_link(graph, op);
    row_windows.push_back(*rows);
    col_windows.push_back(*cols);
    tiling.outputs.push_back(o.outputs[0]);
  }
  const int32_t height = row_windows.back().output_extent, width = col_windows.back().output_extent;
  const Op& last = sg.ops[static_cast<size_t>(stage.last_op)];
  if (stage.tiles > height) {
    throw Error(fmt::format("{}: split: op {} ({}): {} tiles for an output of {} rows", graph.source, stage.last_op,
                            last.name(), stage.tiles, height));
  }
  if (stage.column_tiles > width) {
    throw Error(fmt::format("{}: split: op {} ({}): {} column tiles for an output of {} columns", graph.source,
                            stage.last_op, last.name(), stage.column_tiles, width));
  }
  const int32_t n = tiling.op_count();
  // Each op's rows (or columns) for one tile of the last output's `part`:
  // backwards through the windows; empty ranges are refused (padding only).
  auto ranges = [&](const std::vector<AxisWindow>& windows, IndexRange part, int32_t tile, const char* what) {
    std::vector<IndexRange> per_op(static_cast<size_t>(n));
    per_op.back() = part;
    for (int32_t k = n - 1; k > 0; --k) {
      per_op[static_cast<size_t>(k - 1)] = input_range(windows[static_cast<size_t>(k)], per_op[static_cast<size_t>(k)]);
      if (per_op[static_cast<size_t>(k - 1)].size() == 0) {
        fail(fmt::format("tile {} of op {} reads only padding {}", tile, stage.first_op + k, what));
      }
    }
    return per_op;
  };
  // Even parts: the first extent % count of them one longer.
  auto part = [](int32_t extent, int32_t count, int32_t i) {
    const int32_t base = extent / count, extra = extent % count;
    const int32_t begin = i * base + std::min(i, extra);
    return IndexRange{begin, begin + base + (i < extra ? 1 : 0)};
  };
  tiling.band_rows.assign(static_cast<size_t>(n), 0);
  tiling.band_cols.assign(static_cast<size_t>(n), 0);
  // Each column tile's columns, the same in every band of rows. Without
  // column tiles every op computes and stores whole rows.
  std::vector<std::vector<IndexRange>> column_ranges;
  for (int32_t c = 0; c < stage.column_tiles; ++c) {
    if (stage.column_tiles > 1) {
      column_ranges.push_back(ranges(col_windows, part(width, stage.column_tiles, c), c, "columns"));
      continue;
    }
    std::vector<IndexRange> whole(static_cast<size_t>(n));
    for (int32_t k = 0; k < n; ++k) whole[static_cast<size_t>(k)] = {0, col_windows[static_cast<size_t>(k)].output_extent};
    column_ranges.push_back(std::move(whole));
  }
  for (int32_t r = 0; r < stage.tiles; ++r) {
    const std::vector<IndexRange> rows = ranges(row_windows, part(height, stage.tiles, r), r, "rows");
    for (const std::vector<IndexRange>& cols : column_ranges) {
      for (int32_t k = 0; k < n; ++k) {
        int32_t& band_rows = tiling.band_rows[static_cast<size_t>(k)];
        int32_t& band_cols = tiling.band_cols[static_cast<size_t>(k)];
        band_rows = std::max(band_rows, rows[static_cast<size_t>(k)].size());
        band_cols = std::max(band_cols, cols[static_cast<size_t>(k)].size());
      }
      tiling.rows.push_back(rows);
      tiling.cols.push_back(cols);
    }
  }
  tiling.band_rows.back() = 0;  // the last output is stored whole
  tiling.band_cols.back() = 0;
  return tiling;
}

SplitStage parse_split_spec(const std::string& spec) {
  auto fail = [&] {
    throw Error(fmt::format("--split '{}': expected FIRST-LAST:TILES (op indices and a tile count, e.g. 1-2:4) or "
                            "FIRST-LAST:TILESxCOLUMNS (e.g. 1-2:4x2)",
                            spec));
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
  const size_t times = spec.find('x', colon);
  stage.tiles = number(colon + 1, times == std::string::npos ? spec.size() : times);
  if (times != std::string::npos) stage.column_tiles = number(times + 1, spec.size());
  if (stage.tiles < 1 || stage.column_tiles < 1) {
    throw Error(fmt::format("--split '{}': a stage needs at least one tile", spec));
  }
  return stage;
}

const StageTiling& StageTilingMemo::tiling(const SplitStage& stage) {
  const auto key = std::make_tuple(stage.first_op, stage.last_op, stage.tiles, stage.column_tiles);
  auto found = tilings_.find(key);
  if (found == tilings_.end()) found = tilings_.emplace(key, tile_stage(graph_, stage)).first;
  return found->second;
}

std::string split_spec(const SplitStage& stage) {
  std::string spec = fmt::format("{}-{}:{}", stage.first_op, stage.last_op, stage.tiles);
  if (stage.column_tiles > 1) spec += fmt::format("x{}", stage.column_tiles);
  return spec;
}

std::string split_specs(const std::vector<SplitStage>& stages) {
  std::string specs;
  for (const SplitStage& s : stages) {
    if (!specs.empty()) specs += ' ';
    specs += split_spec(s);
  }
  return specs;
}

}  // namespace dmo

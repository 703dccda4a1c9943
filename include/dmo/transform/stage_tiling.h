// The tiling of a split stage (schedule/split_stage.h): a chain of
// consecutive ops of subgraph 0, each op's output 0 used only by the next
// op, as its input 0. The last output's rows are split as evenly as
// possible into the tiles (and its columns into the column tiles); each
// op's band per tile follows backwards through the receptive fields
// (transform/receptive_field.h), so the earlier ops compute the halo rows
// and columns of neighbouring tiles again. Tiles run band of rows after
// band of rows, left to right within one.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "dmo/model/graph.h"
#include "dmo/ops/output_region.h"
#include "dmo/schedule/split_stage.h"

namespace dmo {

struct StageTiling {
  SplitStage stage;
  // [tile][op - first_op]: the output rows and columns that op computes in
  // that tile, tiles in execution order.
  std::vector<std::vector<IndexRange>> rows;
  std::vector<std::vector<IndexRange>> cols;
  // [op - first_op]: the op's output tensor and, for the intermediates
  // (every op but the last), the largest band over the tiles: its rows and
  // its columns (the whole width without column tiles).
  std::vector<int32_t> outputs;
  std::vector<int32_t> band_rows;
  std::vector<int32_t> band_cols;

  int32_t op_count() const { return stage.last_op - stage.first_op + 1; }
};

// Throws dmo::Error, naming the op, when the stage is not a splittable
// chain: ops out of range or reversed, an op's output not used by the next
// op alone as its input 0 (a branch, a graph output, an op in between), an
// op kind that cannot be split along the height axis, or more tiles than
// the last output has rows (column tiles than it has columns).
StageTiling tile_stage(const Graph& graph, const SplitStage& stage);

// Tilings by stage, each worked out once: a split search builds hundreds of
// schedules and problems from the same few dozen stages. Holds `graph`.
class StageTilingMemo {
 public:
  explicit StageTilingMemo(const Graph& graph) : graph_(graph) {}
  // tile_stage(graph, stage), computed the first time it is asked for.
  const StageTiling& tiling(const SplitStage& stage);

 private:
  const Graph& graph_;
  std::map<std::tuple<int32_t, int32_t, int32_t, int32_t>, StageTiling> tilings_;
};

// Whether op `op` of subgraph 0 passes its output 0 to op + 1 alone, as
// its input 0 (a link of a splittable chain).
bool links_chain(const Graph& graph, int32_t op);

// Whether op `op` of subgraph 0 can run in a stage: a windowed kind
// (receptive_field.h) with a row window.
bool tiles_along_height(const Graph& graph, int32_t op);

// "FIRST-LAST:TILES" (e.g. "1-2:4") as a height split, or
// "FIRST-LAST:TILESxCOLUMNS" (e.g. "1-2:4x2") as patches; throws
// dmo::Error naming the spec when it is malformed. The chain itself is checked by
// tile_stage.
SplitStage parse_split_spec(const std::string& spec);

// The spec parse_split_spec reads back to `stage`.
std::string split_spec(const SplitStage& stage);

// The specs of `stages`, space-separated ("" for none).
std::string split_specs(const std::vector<SplitStage>& stages);

}  // namespace dmo

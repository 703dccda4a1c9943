// `dmo export --split`: split stages as ops TFLM already has
// (transform/tiled_stages.h), the rewritten model planned as TFLM runs it
// (every op whole, walking ascending, for the export's kernel families),
// and deployed only when TFLM then needs fewer bytes in all, head plus
// tail, than with every op whole: each tile op adds TFLM tail (its node,
// OpData and per-channel tables), so more tiles may cost more than they
// save.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dmo/model/graph.h"
#include "dmo/pipeline/plan_pipeline.h"
#include "dmo/pipeline/split_request.h"
#include "dmo/pipeline/tflm_deployment.h"
#include "dmo/schedule/split_stage.h"

namespace dmo {

struct TiledExport {
  std::vector<SplitStage> stages;  // the stages tiled
  // Each tile's output planned at its rows of the stage's output (the
  // concatenation copies it onto itself), not on its own.
  bool tiles_in_place = false;
  Graph graph;                     // the model with them tiled
  PlanResult plan;
  TflmDeployment deployment;
  std::optional<int64_t> tflm_arena_bytes;  // largest_tflm_arena(deployment)
};

// The stages of `requested` the export can write, each narrowed to the
// height when it has column tiles (their patches would need copies) and
// to TFLM's 10 concatenation inputs when it has more tiles;
// `why_not` gets a line per stage left whole.
std::vector<SplitStage> exportable_stages(const Graph& graph, const std::vector<SplitStage>& requested,
                                          std::vector<std::string>* why_not);

// `graph` with `stages` tiled and planned with `export_options` (ascending
// walks, the export's families), buffers created while a slice's source
// lives free to end in the rows already copied out, the tiles' outputs in
// place when asked. Throws dmo::Error naming the stage when one cannot be
// tiled.
TiledExport tiled_export(const Graph& graph, const std::vector<SplitStage>& stages, const PlanOptions& export_options,
                         bool tiles_in_place);

// What `dmo export --split` writes: `exported` when the tiled model is
// written, else every op whole (`reason` says why either way).
struct TiledChoice {
  std::vector<SplitStage> requested;         // the stages asked for (found, with auto)
  std::vector<std::string> left_whole;       // a line per stage not exportable
  std::optional<TiledExport> exported;       // the tiled model, when written
  std::optional<int64_t> tiled_arena_bytes;  // TFLM's whole arena with it, when tried
  std::optional<int64_t> whole_arena_bytes;  // ... with every op whole
  std::string reason;
};

// `split` as the export request: stages given are written as asked (and
// throw dmo::Error when one cannot be); auto takes the stages `dmo plan`
// finds for dmo's reference kernels, along the height, each with the tile
// count (the one found or fewer) that gives TFLM the smallest whole arena,
// the tiles in place or not, whichever needs less, and writes them only
// when that arena (the largest over the families) is smaller than
// `whole`'s. Nothing is tiled for SplitMethod::kNone.
TiledChoice choose_tiled_export(const Graph& graph, const SplitRequest& split, const PlanOptions& export_options,
                                const TflmDeployment& whole);

}  // namespace dmo

#include "dmo/pipeline/tiled_export.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "dmo/error.h"
#include "dmo/pipeline/split_search.h"
#include "dmo/transform/stage_tiling.h"
#include "dmo/transform/tiled_stages.h"

namespace dmo {

std::vector<SplitStage> exportable_stages(const Graph& graph, const std::vector<SplitStage>& requested,
                                          std::vector<std::string>* why_not) {
  std::vector<SplitStage> out;
  for (SplitStage stage : requested) {
    stage.column_tiles = 1;  // rows only: TFLM's tensors are dense
    stage.tiles = std::min(stage.tiles, kTflmMaxConcatenationInputs);
    try {
      (void)tiled_stages(graph, {stage});
      out.push_back(stage);
    } catch (const Error& e) {
      if (why_not) why_not->push_back(fmt::format("stage {} left whole: {}", split_spec(stage), e.what()));
    }
  }
  return out;
}

TiledExport tiled_export(const Graph& graph, const std::vector<SplitStage>& stages, const PlanOptions& export_options,
                         bool tiles_in_place) {
  TiledExport t;
  t.stages = stages;
  t.tiles_in_place = tiles_in_place;
  std::vector<int32_t> concatenations;
  t.graph = tiled_stages(graph, stages, &concatenations);
  PlanOptions options = export_options;
  options.split = {};
  // Tiles write over the input rows the slices before them copied out; in
  // place, each at its rows of the stage's output (TFLM then copies it
  // onto itself), which keeps that output live from the first tile on.
  options.consumed_prefix_overlaps = true;
  if (tiles_in_place) options.concat_in_place_ops = concatenations;
  t.plan = plan_model(t.graph, options);
  t.deployment = choose_tflm_deployment(t.graph, t.plan, export_options.preserve_graph_inputs);
  t.tflm_arena_bytes = largest_tflm_arena(t.deployment);
  return t;
}

namespace {

// TFLM's whole arena of a tiled export, the largest over the families;
// unknown counts as no saving.
int64_t arena_or_max(const TiledExport& t) { return t.tflm_arena_bytes.value_or(INT64_MAX); }

// `copied` (the tiles on their own), or the same stages with the tiles in
// place when TFLM needs fewer bytes so.
TiledExport in_place_if_smaller(const Graph& graph, TiledExport copied, const PlanOptions& options) {
  TiledExport in_place = tiled_export(graph, copied.stages, options, true);
  return arena_or_max(in_place) < arena_or_max(copied) ? std::move(in_place) : std::move(copied);
}

// Each stage with the tile count (the count found, or one of 2, 3, 4, 5, 6
// and 8 below it) that gives TFLM the smallest whole arena, stage by
// stage: every tile op adds TFLM tail (its node, OpData, per-channel
// tables), so fewer tiles than dmo's own plan uses may cost TFLM less in
// all. Then the tiles in place, if that needs less.
TiledExport fewest_bytes_tiling(const Graph& graph, std::vector<SplitStage> stages, const PlanOptions& options) {
  TiledExport best = tiled_export(graph, stages, options, false);
  for (size_t s = 0; s < stages.size(); ++s) {
    const int32_t found = stages[s].tiles;
    for (int32_t tiles : {2, 3, 4, 5, 6, 8}) {
      if (tiles >= found) break;
      std::vector<SplitStage> trial = best.stages;
      trial[s].tiles = tiles;
      TiledExport t = tiled_export(graph, trial, options, false);
      if (arena_or_max(t) < arena_or_max(best)) best = std::move(t);
    }
  }
  return in_place_if_smaller(graph, std::move(best), options);
}

}  // namespace

TiledChoice choose_tiled_export(const Graph& graph, const SplitRequest& split, const PlanOptions& export_options,
                                const TflmDeployment& whole) {
  TiledChoice c;
  c.whole_arena_bytes = largest_tflm_arena(whole);
  if (split.method == SplitMethod::kNone) return c;
  std::vector<SplitStage> stages;
  if (split.method == SplitMethod::kManual) {
    // A stage that cannot be written throws its reason from tiled_export.
    c.requested = split.stages;
    stages = split.stages;
  } else {
    // The stages dmo's own plan takes (reference kernels, any walk).
    PlanOptions search_options;
    search_options.preserve_graph_inputs = export_options.preserve_graph_inputs;
    c.requested = search_split_stages(graph, search_options, split.max_recompute_percent).stages;
    stages = exportable_stages(graph, c.requested, &c.left_whole);
  }
  if (stages.empty()) {
    c.reason = c.requested.empty() ? "no split stage lowers dmo's arena: every op is written whole"
                                   : "no stage can be written as whole ops: every op is written whole";
    return c;
  }
  TiledExport t = split.method == SplitMethod::kManual
                      ? in_place_if_smaller(graph, tiled_export(graph, stages, export_options, false), export_options)
                      : fewest_bytes_tiling(graph, stages, export_options);
  c.tiled_arena_bytes = t.tflm_arena_bytes;
  const bool smaller = t.tflm_arena_bytes && c.whole_arena_bytes && *t.tflm_arena_bytes < *c.whole_arena_bytes;
  if (split.method == SplitMethod::kManual || smaller) {
    c.reason = fmt::format("split stages written as whole ops (slices, pads, a concatenation per stage): --split {}{}",
                           split_specs(t.stages),
                           t.tiles_in_place ? "; each tile's output planned at its rows of the stage's output (the "
                                              "concatenation copies it onto itself)"
                                            : "");
    c.exported = std::move(t);
  } else {
    c.reason = fmt::format("split stages --split {} not written: TFLM would need {} bytes in all with them, {} with "
                           "every op whole",
                           split_specs(t.stages),
                           t.tflm_arena_bytes ? fmt::format("{}", *t.tflm_arena_bytes) : std::string("unknown"),
                           c.whole_arena_bytes ? fmt::format("{}", *c.whole_arena_bytes) : std::string("unknown"));
  }
  return c;
}

}  // namespace dmo

#include "dmo/transform/split_schedule.h"

#include <fmt/format.h>

#include <algorithm>

#include "dmo/error.h"

namespace dmo {

std::vector<StageTiling> stage_tilings(const Graph& graph, const Schedule& schedule) {
  std::vector<StageTiling> tilings;
  for (const SplitStage& stage : schedule.stages) tilings.push_back(tile_stage(graph, stage));
  return tilings;
}

Schedule split_schedule(const Graph& graph, const std::vector<SplitStage>& stages,
                        const std::vector<int32_t>& descending, StageTilingMemo* memo) {
  const Subgraph& sg = graph.main();
  Schedule schedule;
  schedule.stages = stages;
  StageTilingMemo own(graph);
  std::vector<const StageTiling*> tilings;
  for (const SplitStage& stage : stages) tilings.push_back(&(memo ? *memo : own).tiling(stage));
  // The stage (index into tilings) each op runs in, -1 for none.
  std::vector<int32_t> stage_of(sg.ops.size(), -1);
  for (size_t s = 0; s < tilings.size(); ++s) {
    const SplitStage& stage = tilings[s]->stage;
    for (int32_t op = stage.first_op; op <= stage.last_op; ++op) {
      int32_t& owner = stage_of[static_cast<size_t>(op)];
      if (owner >= 0) {
        throw Error(fmt::format("{}: split: op {} ({}) is in two stages", graph.source, op,
                                sg.ops[static_cast<size_t>(op)].name()));
      }
      owner = static_cast<int32_t>(s);
    }
  }
  // A stage of many tiles has thousands of steps: one allocation for them.
  size_t step_count = sg.ops.size();
  for (const StageTiling* tiling : tilings) step_count += tiling->rows.size() * static_cast<size_t>(tiling->op_count());
  schedule.steps.reserve(step_count);
  for (int32_t op = 0; op < static_cast<int32_t>(sg.ops.size()); ++op) {
    if (stage_of[static_cast<size_t>(op)] < 0) {
      ScheduleStep step;
      step.op = op;
      step.descending = std::find(descending.begin(), descending.end(), op) != descending.end();
      schedule.steps.push_back(step);
      continue;
    }
    const StageTiling& tiling = *tilings[static_cast<size_t>(stage_of[static_cast<size_t>(op)])];
    const int32_t n = tiling.op_count();
    for (int32_t k = 0; k + 1 < n; ++k) {
      schedule.band_buffers.push_back({tiling.outputs[static_cast<size_t>(k)], tiling.band_rows[static_cast<size_t>(k)],
                                       tiling.band_cols[static_cast<size_t>(k)]});
    }
    for (size_t tile = 0; tile < tiling.rows.size(); ++tile) {
      const std::vector<IndexRange>& rows = tiling.rows[tile];
      const std::vector<IndexRange>& cols = tiling.cols[tile];
      for (int32_t k = 0; k < n; ++k) {
        const auto at = static_cast<size_t>(k);
        ScheduleStep step;
        step.op = tiling.stage.first_op + k;
        step.region.row_begin = rows[at].begin;
        step.region.row_end = rows[at].end;
        if (tiling.stage.column_tiles > 1) {  // else whole rows, the default region
          step.region.col_begin = cols[at].begin;
          step.region.col_end = cols[at].end;
        }
        // The band this tile reads from (the previous op's) and the one it writes.
        step.bands.reserve(static_cast<size_t>(k > 0) + static_cast<size_t>(k + 1 < n));
        if (k > 0) step.bands.push_back({tiling.outputs[at - 1], rows[at - 1].begin, cols[at - 1].begin});
        if (k + 1 < n) step.bands.push_back({tiling.outputs[at], rows[at].begin, cols[at].begin});
        schedule.steps.push_back(std::move(step));
      }
    }
    op = tiling.stage.last_op;
  }
  check_schedule(graph, schedule);
  return schedule;
}

}  // namespace dmo

#include "dmo/pipeline/stage_peaks.h"

#include <algorithm>

#include "dmo/overlap/on_every_core.h"
#include "dmo/plan/bounds.h"
#include "dmo/schedule/schedule.h"
#include "dmo/transform/split_schedule.h"

namespace dmo {

int64_t stage_alone_peak(const Graph& graph, const PlanOptions& unsplit, const std::vector<OpOverlap>& overlaps,
                         const SplitStage& stage, StageTilingMemo& tilings) {
  PlanOptions alone = unsplit;
  alone.split = {stage};
  const Schedule schedule = split_schedule(graph, alone.split, {}, &tilings);
  const MemoryProblem problem = planned_problem(graph, alone, schedule, overlaps, &tilings);
  if (has_fixed_offsets(problem)) return 0;
  const std::vector<int64_t> need = live_profile(problem).less_saving();
  const StepRange steps = stage_steps(schedule, stage);
  int64_t peak = 0;
  for (size_t t = steps.first; t < steps.end && t < need.size(); ++t) peak = std::max(peak, need[t]);
  return peak;
}

int64_t stage_peak_floor(const Subgraph& subgraph, const MemoryProblem& unsplit_problem, const SplitStage& stage) {
  const int32_t input = subgraph.ops[static_cast<size_t>(stage.first_op)].inputs[0];
  const int32_t output = subgraph.ops[static_cast<size_t>(stage.last_op)].outputs[0];
  int64_t across = 0, input_bytes = 0, output_bytes = 0;
  for (const BufferRequest& b : unsplit_problem.buffers) {
    if (b.tensor == kNoTensor) continue;
    if (b.lifetime.first < stage.first_op && b.lifetime.last > stage.last_op) {
      across += b.size;
    } else if (b.tensor == input) {
      input_bytes = b.size;
    } else if (b.tensor == output) {
      output_bytes = b.size;
    }
  }
  return across + std::max(input_bytes, output_bytes);
}

std::vector<int64_t> stage_alone_peaks(const Graph& graph, const PlanOptions& unsplit,
                                       const std::vector<OpOverlap>& overlaps, const std::vector<SplitStage>& stages) {
  std::vector<int64_t> peaks(stages.size(), 0);
  // Each thread its own tilings: a stage's tiling is asked for by that
  // stage alone here. A few stages are not worth a thread.
  constexpr size_t kStagesPerThread = 16;
  std::vector<StageTilingMemo> tilings(threads_for(stages.size(), kStagesPerThread), StageTilingMemo(graph));
  on_every_core(stages.size(), kStagesPerThread, [&](size_t i, size_t worker) {
    peaks[i] = stage_alone_peak(graph, unsplit, overlaps, stages[i], tilings[worker]);
  });
  return peaks;
}

}  // namespace dmo

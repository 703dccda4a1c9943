#include "dmo/schedule/schedule_lifetimes.h"

#include <algorithm>

namespace dmo {

std::vector<Lifetime> schedule_lifetimes(const Graph& graph, const Schedule& schedule) {
  std::vector<int32_t> op_at_step;
  op_at_step.reserve(schedule.steps.size());
  for (const ScheduleStep& step : schedule.steps) op_at_step.push_back(step.op);
  std::vector<Lifetime> lifetimes = compute_lifetimes(graph.main(), op_at_step);
  // A view and its base share bytes: each lives while either must.
  for (const TensorView& v : schedule.views) {
    Lifetime& view = lifetimes[static_cast<size_t>(v.tensor)];
    Lifetime& base = lifetimes[static_cast<size_t>(v.base)];
    // A base no step writes (its op's copy is gone) begins with its views.
    const int32_t first = base.first == kUninitialised ? view.first
                          : view.first == kUninitialised ? base.first
                                                         : std::min(view.first, base.first);
    const Lifetime joined{first, std::max(view.last, base.last)};
    view = base = joined;
  }
  // A split stage's intermediate is written afresh by every tile and read
  // by the next op of the same tile before the next tile begins, so each
  // tile repeats the first one's pattern: the band lives from its first
  // write to its first read, and bands of ops apart may share bytes.
  for (const BandBuffer& band : schedule.band_buffers) {
    int32_t written = -1, read = -1;
    for (size_t i = 0; i < schedule.steps.size() && read < 0; ++i) {
      const Op& op = graph.main().ops[static_cast<size_t>(schedule.steps[i].op)];
      if (written < 0) {
        if (std::find(op.outputs.begin(), op.outputs.end(), band.tensor) != op.outputs.end()) {
          written = static_cast<int32_t>(i);
        }
      } else if (std::find(op.inputs.begin(), op.inputs.end(), band.tensor) != op.inputs.end()) {
        read = static_cast<int32_t>(i);
      }
    }
    if (written >= 0 && read >= 0) lifetimes[static_cast<size_t>(band.tensor)] = Lifetime{written, read};
  }
  // For that, a stage's output, whose rows later tiles write while every
  // band is in use, lives from the stage's first step.
  for (const SplitStage& stage : schedule.stages) {
    const StepRange steps = stage_steps(schedule, stage);
    if (steps.first == steps.end) continue;
    const int32_t output = graph.main().ops[static_cast<size_t>(stage.last_op)].outputs[0];
    Lifetime& life = lifetimes[static_cast<size_t>(output)];
    life.first = std::min(life.first, static_cast<int32_t>(steps.first));
  }
  return lifetimes;
}

}  // namespace dmo

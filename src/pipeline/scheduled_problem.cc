#include "dmo/pipeline/scheduled_problem.h"

#include <fmt/format.h>

#include <vector>

#include "dmo/error.h"
#include "dmo/model/model_timeline.h"
#include "dmo/plan/buffers_by_tensor.h"
#include "dmo/schedule/schedule_lifetimes.h"

namespace dmo {

namespace {

// A whole model runs subgraph 0 one whole step per op, in order (its
// called subgraphs run inside their callers' steps).
void require_whole_model_schedule(const Graph& graph, const Schedule& schedule) {
  bool plain = schedule.steps.size() == graph.main().ops.size() && schedule.views.empty();
  for (size_t i = 0; plain && i < schedule.steps.size(); ++i) {
    plain = schedule.steps[i].op == static_cast<int32_t>(i) && schedule.steps[i].region.is_whole();
  }
  if (!plain) {
    throw Error(fmt::format("{}: a model of {} subgraphs runs one whole step per op of subgraph 0, in order",
                            graph.source, graph.subgraphs.size()));
  }
}

}  // namespace

bool plans_whole_model(const Graph& graph) { return graph.subgraphs.size() > 1; }

MemoryProblem build_scheduled_problem(const Graph& graph, const Schedule& schedule) {
  if (plans_whole_model(graph)) return build_scheduled_problem(graph, schedule, {});
  return build_scheduled_problem(graph, schedule, schedule_lifetimes(graph, schedule));
}

MemoryProblem build_scheduled_problem(const Graph& graph, const Schedule& schedule,
                                      const std::vector<Lifetime>& lifetimes) {
  if (plans_whole_model(graph)) {
    require_whole_model_schedule(graph, schedule);
    return build_model_memory_problem(graph, model_timeline(graph));
  }
  const Subgraph& sg = graph.main();
  MemoryProblem problem = build_memory_problem(sg, lifetimes, static_cast<int32_t>(schedule.steps.size()));
  const std::vector<int32_t> buffer_of = buffers_by_tensor(problem, sg.tensors.size());
  for (const TensorView& view : schedule.views) {
    const int32_t buffer = buffer_of[static_cast<size_t>(view.tensor)];
    const int32_t base = buffer_of[static_cast<size_t>(view.base)];
    if (buffer < 0 || base < 0) continue;  // zero-size tensors take no bytes
    const int64_t element = element_size(sg.tensors[static_cast<size_t>(view.tensor)].type).value_or(1);
    problem.aliases.push_back({buffer, base, view.offset * element});
  }
  // A split stage's intermediate takes only its largest band.
  for (const BandBuffer& band : schedule.band_buffers) {
    const int32_t buffer = buffer_of[static_cast<size_t>(band.tensor)];
    if (buffer >= 0) problem.buffers[static_cast<size_t>(buffer)].size = band_bytes(sg.tensors[static_cast<size_t>(band.tensor)], band);
  }
  return problem;
}

MemoryProblem with_bands_over_whole_stages(const Graph& graph, const MemoryProblem& problem,
                                          const Schedule& schedule) {
  MemoryProblem stricter = problem;
  const Subgraph& sg = graph.main();
  for (const SplitStage& stage : schedule.stages) {
    const StepRange steps = stage_steps(schedule, stage);
    const Lifetime span{static_cast<int32_t>(steps.first), static_cast<int32_t>(steps.end) - 1};
    for (int32_t op = stage.first_op; op < stage.last_op; ++op) {
      const int32_t band = sg.ops[static_cast<size_t>(op)].outputs[0];
      if (!band_buffer_of(schedule, band)) continue;
      for (BufferRequest& buffer : stricter.buffers) {
        if (buffer.tensor == band) buffer.lifetime = span;
      }
    }
  }
  return stricter;
}

std::vector<int32_t> scheduled_step_times(const Graph& graph, const Schedule& schedule) {
  std::vector<int32_t> times(schedule.steps.size());
  if (!plans_whole_model(graph)) {
    for (size_t i = 0; i < times.size(); ++i) times[i] = static_cast<int32_t>(i);
    return times;
  }
  require_whole_model_schedule(graph, schedule);
  const ModelTimeline timeline = model_timeline(graph);
  for (size_t i = 0; i < times.size(); ++i) times[i] = timeline.op_time[i];  // subgraph 0's ops come first
  return times;
}

std::vector<Lifetime> scheduled_problem_lifetimes(const Graph& graph, const Schedule& schedule) {
  if (!plans_whole_model(graph)) return schedule_lifetimes(graph, schedule);
  require_whole_model_schedule(graph, schedule);
  return model_timeline(graph).lifetimes;
}

void add_scheduled_overlap_pairs(const Graph& graph, const Schedule& schedule, MemoryProblem& problem,
                                 const std::vector<OpOverlap>& overlaps) {
  const size_t first_new = problem.overlaps.size();
  add_overlap_pairs(problem, overlaps);
  if (!plans_whole_model(graph)) return;
  const std::vector<int32_t> times = scheduled_step_times(graph, schedule);
  const ModelTimeline timeline = model_timeline(graph);
  for (size_t p = first_new; p < problem.overlaps.size(); ++p) {
    OverlapPair& pair = problem.overlaps[p];
    // Past subgraph 0's steps come the called subgraphs' ops, by flat index.
    const auto op = static_cast<size_t>(pair.op);
    pair.op = op < times.size() ? times[op] : timeline.op_time[op];
  }
}

}  // namespace dmo

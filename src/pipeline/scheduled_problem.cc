#include "dmo/pipeline/scheduled_problem.h"

#include <vector>

#include "dmo/schedule/schedule_lifetimes.h"

namespace dmo {

MemoryProblem build_scheduled_problem(const Graph& graph, const Schedule& schedule) {
  const Subgraph& sg = graph.main();
  MemoryProblem problem =
      build_memory_problem(sg, schedule_lifetimes(graph, schedule), static_cast<int32_t>(schedule.steps.size()));
  std::vector<int32_t> buffer_of(sg.tensors.size(), -1);
  for (size_t b = 0; b < problem.buffers.size(); ++b) {
    buffer_of[static_cast<size_t>(problem.buffers[b].tensor)] = static_cast<int32_t>(b);
  }
  for (const TensorView& view : schedule.views) {
    const int32_t buffer = buffer_of[static_cast<size_t>(view.tensor)];
    const int32_t base = buffer_of[static_cast<size_t>(view.base)];
    if (buffer < 0 || base < 0) continue;  // zero-size tensors take no bytes
    const int64_t element = element_size(sg.tensors[static_cast<size_t>(view.tensor)].type).value_or(1);
    problem.aliases.push_back({buffer, base, view.offset * element});
  }
  return problem;
}

}  // namespace dmo

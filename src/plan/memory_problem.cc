#include "dmo/plan/memory_problem.h"

namespace dmo {

MemoryProblem build_memory_problem(const Subgraph& subgraph) {
  return build_memory_problem(subgraph, compute_lifetimes(subgraph), static_cast<int32_t>(subgraph.ops.size()));
}

MemoryProblem build_memory_problem(const Subgraph& subgraph, const std::vector<Lifetime>& lifetimes,
                                   int32_t step_count) {
  MemoryProblem problem;
  problem.op_count = step_count;
  for (size_t t = 0; t < subgraph.tensors.size(); ++t) {
    if (!tflm_plans_tensor(subgraph.tensors[t])) continue;
    problem.buffers.push_back({static_cast<int32_t>(t), subgraph.tensors[t].byte_size, lifetimes[t]});
  }
  return problem;
}

MemoryProblem build_tflm_memory_problem(const Graph& graph) {
  MemoryProblem problem = build_memory_problem(graph.main());
  if (!graph.offline_plan) return problem;
  // Subgraph 0's tensors come first in the offline plan.
  const std::vector<int32_t>& offsets = graph.offline_plan->offsets;
  for (BufferRequest& buffer : problem.buffers) {
    const auto t = static_cast<size_t>(buffer.tensor);
    if (t < offsets.size() && offsets[t] >= 0) buffer.fixed_offset = offsets[t];
  }
  return problem;
}

}  // namespace dmo

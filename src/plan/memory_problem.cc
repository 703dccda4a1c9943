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

MemoryProblem build_model_memory_problem(const Graph& graph, const ModelTimeline& timeline) {
  if (graph.subgraphs.size() == 1) return build_memory_problem(graph.main());
  MemoryProblem problem;
  problem.op_count = timeline.time_count;
  for (size_t s = 0; s < graph.subgraphs.size(); ++s) {
    const Subgraph& sg = graph.subgraphs[s];
    for (size_t t = 0; t < sg.tensors.size(); ++t) {
      if (!tflm_plans_tensor(sg.tensors[t])) continue;
      const int32_t flat = timeline.flat_tensor(static_cast<int32_t>(s), static_cast<int32_t>(t));
      problem.buffers.push_back({flat, sg.tensors[t].byte_size, timeline.lifetimes[static_cast<size_t>(flat)]});
    }
  }
  return problem;
}

MemoryProblem build_tflm_memory_problem(const Graph& graph) {
  MemoryProblem problem = build_model_memory_problem(graph, model_timeline(graph));
  if (!graph.offline_plan) return problem;
  // The offline plan lists every subgraph's tensors in flat order.
  const std::vector<int32_t>& offsets = graph.offline_plan->offsets;
  for (BufferRequest& buffer : problem.buffers) {
    const auto t = static_cast<size_t>(buffer.tensor);
    if (t < offsets.size() && offsets[t] >= 0) buffer.fixed_offset = offsets[t];
  }
  return problem;
}

}  // namespace dmo

#include "dmo/plan/memory_problem.h"

namespace dmo {

MemoryProblem build_memory_problem(const Subgraph& subgraph) {
  MemoryProblem problem;
  problem.op_count = static_cast<int32_t>(subgraph.ops.size());
  std::vector<Lifetime> lifetimes = compute_lifetimes(subgraph);
  for (size_t t = 0; t < subgraph.tensors.size(); ++t) {
    if (!tflm_plans_tensor(subgraph.tensors[t])) continue;
    problem.buffers.push_back({static_cast<int32_t>(t), subgraph.tensors[t].byte_size, lifetimes[t]});
  }
  return problem;
}

}  // namespace dmo

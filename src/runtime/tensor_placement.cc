#include "dmo/runtime/tensor_placement.h"

#include "dmo/model/lifetime.h"

namespace dmo {

TensorPlacement unshared_placement(const Subgraph& subgraph) {
  TensorPlacement placement;
  placement.offsets.assign(subgraph.tensors.size(), -1);
  for (size_t t = 0; t < subgraph.tensors.size(); ++t) {
    if (!tflm_plans_tensor(subgraph.tensors[t])) continue;
    placement.offsets[t] = placement.arena_size;
    placement.arena_size += align_up(subgraph.tensors[t].byte_size, 16);
  }
  return placement;
}

TensorPlacement placement_from_plan(const Subgraph& subgraph, const MemoryProblem& problem, const Plan& plan) {
  TensorPlacement placement;
  placement.offsets.assign(subgraph.tensors.size(), -1);
  for (size_t b = 0; b < problem.buffers.size(); ++b) {
    const int32_t t = problem.buffers[b].tensor;
    if (t == kNoTensor) continue;  // a kernel's scratch buffer
    // A problem over every subgraph numbers their tensors on from subgraph 0's.
    if (static_cast<size_t>(t) >= placement.offsets.size()) placement.offsets.resize(static_cast<size_t>(t) + 1, -1);
    placement.offsets[static_cast<size_t>(t)] = plan.offsets[b];
  }
  placement.arena_size = plan.arena_size;
  placement.descending_ops = plan.descending_ops;
  return placement;
}

}  // namespace dmo

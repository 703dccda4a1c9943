#include "dmo/plan/tflm_layout.h"

namespace dmo {

Plan plan_tflm_with_offsets(const MemoryProblem& problem, const std::vector<int64_t>& offsets, int64_t alignment) {
  MemoryProblem tflm;
  tflm.op_count = problem.op_count;
  tflm.buffers = problem.buffers;
  for (size_t b = 0; b < tflm.buffers.size(); ++b) {
    BufferRequest& buffer = tflm.buffers[b];
    buffer.fixed_offset = offsets[b] >= 0 ? std::optional<int64_t>(offsets[b]) : std::nullopt;
  }
  return plan_tflm_greedy(tflm, alignment);
}

std::vector<int64_t> tensor_offsets(const MemoryProblem& problem, const Plan& plan) {
  std::vector<int64_t> offsets(problem.buffers.size(), -1);
  for (size_t b = 0; b < problem.buffers.size(); ++b) {
    if (problem.buffers[b].tensor != kNoTensor) offsets[b] = plan.offsets[b];
  }
  return offsets;
}

Plan tflm_layout(const MemoryProblem& problem, const Plan& plan, int64_t alignment) {
  Plan laid_out = plan_tflm_with_offsets(problem, tensor_offsets(problem, plan), alignment);
  laid_out.planner = plan.planner;
  laid_out.descending_ops = plan.descending_ops;
  return laid_out;
}

}  // namespace dmo

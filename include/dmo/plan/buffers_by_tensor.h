// Which buffer of a memory problem holds each tensor.
#pragma once

#include <cstdint>
#include <vector>

#include "dmo/plan/memory_problem.h"

namespace dmo {

// Per tensor index below `tensor_count`: the index of the problem's buffer
// holding it, -1 for none (unplanned, or a scratch buffer's kNoTensor).
inline std::vector<int32_t> buffers_by_tensor(const MemoryProblem& problem, size_t tensor_count) {
  std::vector<int32_t> buffer_of(tensor_count, -1);
  for (size_t b = 0; b < problem.buffers.size(); ++b) {
    const int32_t t = problem.buffers[b].tensor;
    if (t >= 0 && static_cast<size_t>(t) < tensor_count) buffer_of[static_cast<size_t>(t)] = static_cast<int32_t>(b);
  }
  return buffer_of;
}

}  // namespace dmo

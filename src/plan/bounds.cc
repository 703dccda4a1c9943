#include "dmo/plan/bounds.h"

#include <algorithm>

namespace dmo {

int64_t naive_bytes(const MemoryProblem& problem) {
  int64_t total = 0;
  for (const BufferRequest& b : problem.buffers) total += b.size;
  return total;
}

std::vector<int64_t> live_bytes_per_op(const MemoryProblem& problem) {
  // Difference array over op indices: +size at first use, -size after last.
  std::vector<int64_t> delta(static_cast<size_t>(problem.op_count) + 1, 0);
  for (const BufferRequest& b : problem.buffers) {
    int32_t first = std::max(b.lifetime.first, 0);
    int32_t last = std::min(b.lifetime.last, problem.op_count - 1);
    if (first > last) continue;
    delta[static_cast<size_t>(first)] += b.size;
    delta[static_cast<size_t>(last) + 1] -= b.size;
  }
  std::vector<int64_t> live(static_cast<size_t>(problem.op_count));
  int64_t running = 0;
  for (size_t i = 0; i < live.size(); ++i) live[i] = running += delta[i];
  return live;
}

int64_t lower_bound_bytes(const MemoryProblem& problem) {
  std::vector<int64_t> live = live_bytes_per_op(problem);
  int64_t bound = live.empty() ? 0 : *std::max_element(live.begin(), live.end());
  // Buffers outside every op (unused tensors) still need their own bytes.
  for (const BufferRequest& b : problem.buffers) bound = std::max(bound, b.size);
  return bound;
}

}  // namespace dmo

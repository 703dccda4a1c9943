#include "dmo/plan/tflm_greedy_planner.h"

#include <algorithm>
#include <numeric>

namespace dmo {

Plan plan_tflm_greedy(const MemoryProblem& problem) {
  const size_t n = problem.buffers.size();
  std::vector<int64_t> sizes(n);
  for (size_t i = 0; i < n; ++i) sizes[i] = align_up(problem.buffers[i].size, kTflmBufferAlignment);

  // TFLM fills its sort array from the tail and bubble-sorts it (stable), so
  // equal sizes end up in reverse buffer order.
  std::vector<size_t> order(n);
  std::iota(order.rbegin(), order.rend(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return sizes[a] > sizes[b]; });

  Plan plan;
  plan.planner = "tflm_greedy";
  plan.offsets.assign(n, 0);
  // Placed buffers kept sorted by offset, like TFLM's linked list.
  std::vector<size_t> placed;
  placed.reserve(n);
  for (size_t k = 0; k < n; ++k) {
    size_t b = order[k];
    const Lifetime& life = problem.buffers[b].lifetime;
    int64_t candidate = 0;
    for (size_t p : placed) {
      if (!problem.buffers[p].lifetime.intersects(life)) continue;
      if (plan.offsets[p] - candidate >= sizes[b]) break;  // fits in the gap below p
      candidate = std::max(candidate, plan.offsets[p] + sizes[p]);
    }
    plan.offsets[b] = candidate;
    auto at = std::upper_bound(placed.begin(), placed.end(), candidate,
                               [&](int64_t offset, size_t p) { return offset < plan.offsets[p]; });
    placed.insert(at, b);
  }
  for (size_t i = 0; i < n; ++i) plan.arena_size = std::max(plan.arena_size, plan.offsets[i] + sizes[i]);
  return plan;
}

}  // namespace dmo

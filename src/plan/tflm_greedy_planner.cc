#include "dmo/plan/tflm_greedy_planner.h"

#include <algorithm>
#include <numeric>

#include "dmo/plan/alias_groups.h"
#include "dmo/plan/free_start.h"
#include "dmo/plan/live_together.h"

namespace dmo {

Plan plan_tflm_greedy(const MemoryProblem& problem, int64_t alignment) {
  const size_t n = problem.buffers.size();
  const AliasGroups groups(problem);
  std::vector<int64_t> sizes(n);
  for (size_t i = 0; i < n; ++i) sizes[i] = align_up(problem.buffers[i].size, alignment);

  // TFLM puts offline-planned buffers at the head of its sort array in
  // buffer order and fills the rest from the tail, then bubble-sorts only
  // the rest (stable), so equal sizes end up in reverse buffer order.
  std::vector<size_t> fixed, online;
  for (size_t i = n; i-- > 0;) {
    const auto root = static_cast<int32_t>(i);
    if (!groups.is_root(root)) continue;
    (groups.fixed_root_offset(root) ? fixed : online).push_back(i);
  }
  std::reverse(fixed.begin(), fixed.end());
  std::stable_sort(online.begin(), online.end(), [&](size_t a, size_t b) { return sizes[a] > sizes[b]; });

  Plan plan;
  plan.planner = "tflm_greedy";
  plan.offsets.assign(n, 0);
  std::vector<char> placed(n, 0);
  auto put = [&](int32_t root, int64_t offset) {
    for (int32_t m : groups.members(root)) {
      plan.offsets[static_cast<size_t>(m)] = offset + groups.offset_in_root(m);
      placed[static_cast<size_t>(m)] = 1;
    }
  };
  for (size_t r : fixed) put(static_cast<int32_t>(r), *groups.fixed_root_offset(static_cast<int32_t>(r)));
  // TFLM walks its offset-sorted list of placed buffers and takes the first
  // gap that fits: the lowest offset that collides with none of them.
  StartRanges forbidden;
  const std::vector<std::vector<int32_t>> together = buffers_live_together(problem);
  for (size_t r : online) {
    const auto root = static_cast<int32_t>(r);
    forbidden.clear();
    for (int32_t m : groups.members(root)) {
      const auto mi = static_cast<size_t>(m);
      if (sizes[mi] == 0) continue;
      for (int32_t other : together[mi]) {
        const auto p = static_cast<size_t>(other);
        if (!placed[p] || sizes[p] == 0 || groups.same_group(root, other)) continue;
        const int64_t shift = groups.offset_in_root(m);
        forbidden.emplace_back(plan.offsets[p] - sizes[mi] - shift, plan.offsets[p] + sizes[p] - shift);
      }
    }
    put(root, lowest_free_start(forbidden, groups.alignment(root, alignment), groups.lowest_root_offset(root)));
  }
  for (size_t i = 0; i < n; ++i) plan.arena_size = std::max(plan.arena_size, plan.offsets[i] + sizes[i]);
  return plan;
}

}  // namespace dmo

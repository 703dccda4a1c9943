#include "dmo/plan/window_bound.h"

#include <algorithm>

#include "dmo/plan/bounds.h"

namespace dmo {

int64_t peak_window_lower_bound_bytes(const MemoryProblem& problem, const WindowBoundOptions& options) {
  if (problem.op_count <= 0 || problem.buffers.empty()) return 0;
  const std::vector<char> eligible = window_eligible_buffers(problem, options.packing.alignment);
  const std::vector<int64_t> live = live_bytes_per_op(problem);
  // Eligible buffers by first and by last time, to grow windows a time at a time.
  auto covered = [&](size_t b) {
    const Lifetime& l = problem.buffers[b].lifetime;
    return std::make_pair(std::max(l.first, 0), std::min(l.last, problem.op_count - 1));
  };
  std::vector<int32_t> centres(live.size());
  for (size_t t = 0; t < live.size(); ++t) centres[t] = static_cast<int32_t>(t);
  std::stable_sort(centres.begin(), centres.end(),
                   [&](int32_t a, int32_t b) { return live[static_cast<size_t>(a)] > live[static_cast<size_t>(b)]; });
  int64_t bound = 0;
  int32_t tried = 0;
  std::vector<int32_t> window;
  for (int32_t centre : centres) {
    // A centre whose own buffers are too many counts as tried too: on a
    // large graph with no small peak the scan stays short.
    if (tried++ >= options.max_windows) break;
    // The buffers live in [lo, hi]: counted once per window.
    auto members = [&](int32_t lo, int32_t hi) {
      std::vector<int32_t> in;
      for (size_t b = 0; b < problem.buffers.size(); ++b) {
        if (!eligible[b]) continue;
        const auto [first, last] = covered(b);
        if (first <= hi && last >= lo) in.push_back(static_cast<int32_t>(b));
      }
      return in;
    };
    int32_t lo = centre, hi = centre;
    window = members(lo, hi);
    if (static_cast<int32_t>(window.size()) > options.max_buffers) continue;
    // Grow on the side that adds fewer buffers, while the window stays small.
    for (;;) {
      std::vector<int32_t> left, right;
      if (lo > 0) left = members(lo - 1, hi);
      if (hi + 1 < problem.op_count) right = members(lo, hi + 1);
      const bool left_ok = lo > 0 && static_cast<int32_t>(left.size()) <= options.max_buffers;
      const bool right_ok = hi + 1 < problem.op_count && static_cast<int32_t>(right.size()) <= options.max_buffers;
      if (!left_ok && !right_ok) break;
      if (left_ok && (!right_ok || left.size() <= right.size())) {
        --lo;
        window = std::move(left);
      } else {
        ++hi;
        window = std::move(right);
      }
    }
    if (std::optional<int64_t> packed = exact_subset_arena_bytes(problem, window, options.packing)) {
      bound = std::max(bound, *packed);
      if (options.packing.ceiling && bound >= *options.packing.ceiling) break;
    }
  }
  return bound;
}

}  // namespace dmo

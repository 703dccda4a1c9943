#include "dmo/plan/window_bound.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "dmo/plan/bounds.h"

namespace dmo {

int64_t peak_window_lower_bound_bytes(const MemoryProblem& problem, const WindowBoundOptions& options) {
  if (problem.op_count <= 0 || problem.buffers.empty()) return 0;
  const std::vector<char> eligible = window_eligible_buffers(problem, options.packing.alignment);
  const std::vector<int64_t> live = live_bytes_per_op(problem);
  std::vector<int32_t> centres(live.size());
  for (size_t t = 0; t < live.size(); ++t) centres[t] = static_cast<int32_t>(t);
  std::stable_sort(centres.begin(), centres.end(),
                   [&](int32_t a, int32_t b) { return live[static_cast<size_t>(a)] > live[static_cast<size_t>(b)]; });
  int64_t bound = 0;
  int32_t tried = 0;
  for (int32_t centre : centres) {
    // A centre whose own buffers are too many counts as tried too: on a
    // large graph with no small peak the scan stays short.
    if (tried++ >= options.max_windows) break;
    const std::optional<std::vector<int32_t>> window = window_buffers(problem, eligible, centre, options.max_buffers);
    if (!window) continue;
    if (std::optional<int64_t> packed = exact_subset_arena_bytes(problem, *window, options.packing)) {
      bound = std::max(bound, *packed);
      if (options.packing.ceiling && bound >= *options.packing.ceiling) break;
    }
  }
  return bound;
}

}  // namespace dmo

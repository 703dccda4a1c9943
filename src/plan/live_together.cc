#include "dmo/plan/live_together.h"

#include <algorithm>

namespace dmo {

std::vector<std::vector<int32_t>> buffers_live_together(const MemoryProblem& problem) {
  const size_t n = problem.buffers.size();
  std::vector<std::vector<int32_t>> together(n);
  std::vector<int32_t> by_first;
  for (size_t b = 0; b < n; ++b) {
    if (problem.buffers[b].size > 0) by_first.push_back(static_cast<int32_t>(b));
  }
  auto life = [&](int32_t b) -> const Lifetime& { return problem.buffers[static_cast<size_t>(b)].lifetime; };
  std::stable_sort(by_first.begin(), by_first.end(), [&](int32_t a, int32_t b) { return life(a).first < life(b).first; });
  // A buffer meets a later-starting one only if that starts by its last use,
  // and every buffer after that one in the sweep starts later still.
  for (size_t i = 0; i < by_first.size(); ++i) {
    const int32_t a = by_first[i];
    for (size_t j = i + 1; j < by_first.size() && life(by_first[j]).first <= life(a).last; ++j) {
      const int32_t b = by_first[j];
      if (!life(a).intersects(life(b))) continue;
      together[static_cast<size_t>(a)].push_back(b);
      together[static_cast<size_t>(b)].push_back(a);
    }
  }
  // Each list in ascending buffer order: buffers visited in ascending order
  // append themselves to their partners' lists (linear, where sorting every
  // list costs a log factor on long-lived buffers' long lists).
  std::vector<std::vector<int32_t>> sorted(n);
  for (size_t b = 0; b < n; ++b) sorted[b].reserve(together[b].size());
  for (size_t b = 0; b < n; ++b) {
    for (int32_t partner : together[b]) sorted[static_cast<size_t>(partner)].push_back(static_cast<int32_t>(b));
  }
  return sorted;
}

}  // namespace dmo

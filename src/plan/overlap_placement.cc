#include "dmo/plan/overlap_placement.h"

#include <algorithm>
#include <numeric>

namespace dmo {

OverlapPlacer::OverlapPlacer(const MemoryProblem& problem, int64_t alignment, bool use_overlaps)
    : problem_(problem), alignment_(alignment) {
  const size_t n = problem.buffers.size();
  overlaps_of_.resize(n);
  if (use_overlaps) {
    for (const OverlapPair& pair : problem.overlaps) {
      overlaps_of_[static_cast<size_t>(pair.output_buffer)].emplace_back(pair.input_buffer, pair.safe_overlap);
    }
  }
  conflicts_.resize(n);
  for (size_t a = 0; a < n; ++a) {
    for (size_t b = a + 1; b < n; ++b) {
      if (problem.buffers[a].size == 0 || problem.buffers[b].size == 0) continue;
      if (!problem.buffers[a].lifetime.intersects(problem.buffers[b].lifetime)) continue;
      conflicts_[a].push_back(static_cast<int32_t>(b));
      conflicts_[b].push_back(static_cast<int32_t>(a));
    }
  }
}

int64_t OverlapPlacer::overlap(int32_t lower, int32_t upper) const {
  for (const auto& [input, bytes] : overlaps_of_[static_cast<size_t>(lower)]) {
    if (input == upper) return bytes;
  }
  return 0;
}

std::vector<int32_t> OverlapPlacer::reverse_order() const {
  std::vector<int32_t> order(problem_.buffers.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    const Lifetime& la = problem_.buffers[static_cast<size_t>(a)].lifetime;
    const Lifetime& lb = problem_.buffers[static_cast<size_t>(b)].lifetime;
    if (la.last != lb.last) return la.last > lb.last;
    return la.first > lb.first;  // at the same op its output before its inputs
  });
  return order;
}

std::vector<int32_t> OverlapPlacer::creation_order() const {
  std::vector<int32_t> order(problem_.buffers.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    const Lifetime& la = problem_.buffers[static_cast<size_t>(a)].lifetime;
    const Lifetime& lb = problem_.buffers[static_cast<size_t>(b)].lifetime;
    if (la.first != lb.first) return la.first < lb.first;
    return la.last > lb.last;
  });
  return order;
}

void OverlapPlacer::forbidden_ranges(int32_t x, const Plan& plan, const std::vector<char>& placed,
                                     std::vector<std::pair<int64_t, int64_t>>& ranges) const {
  ranges.clear();
  const int64_t size = problem_.buffers[static_cast<size_t>(x)].size;
  if (size == 0) return;
  for (int32_t t : conflicts_[static_cast<size_t>(x)]) {
    if (!placed[static_cast<size_t>(t)]) continue;
    const int64_t t_start = plan.offsets[static_cast<size_t>(t)];
    const int64_t t_size = problem_.buffers[static_cast<size_t>(t)].size;
    // Without overlap X must end by T's start or start at T's end. When X is
    // the output and T its dying input, X may reach `below` bytes into T;
    // when T is the output and X its input, X may start `above` bytes before
    // T's end.
    const int64_t below = overlap(x, t);
    const int64_t above = overlap(t, x);
    ranges.emplace_back(t_start - size + below, t_start + t_size - above);
  }
}

Plan OverlapPlacer::place(const std::vector<int32_t>& order) const {
  const size_t n = problem_.buffers.size();
  Plan plan;
  plan.offsets.assign(n, 0);
  std::vector<char> placed(n, 0);
  std::vector<std::pair<int64_t, int64_t>> forbidden;
  for (int32_t x : order) {
    forbidden_ranges(x, plan, placed, forbidden);
    // Lowest aligned start inside no forbidden open range (lo, hi): the
    // candidate only grows, so repeat until no range holds it.
    std::sort(forbidden.begin(), forbidden.end());
    int64_t candidate = 0;
    for (bool moved = true; moved;) {
      moved = false;
      for (const auto& [lo, hi] : forbidden) {
        if (lo >= candidate) break;  // sorted: no later range starts below the candidate
        if (candidate < hi) {
          candidate = align_up(hi, alignment_);
          moved = true;
        }
      }
    }
    plan.offsets[static_cast<size_t>(x)] = candidate;
    placed[static_cast<size_t>(x)] = 1;
  }
  for (size_t i = 0; i < n; ++i) {
    plan.arena_size = std::max(plan.arena_size, plan.offsets[i] + problem_.buffers[i].size);
  }
  return plan;
}

std::optional<Plan> OverlapPlacer::place_highest(const std::vector<int32_t>& order, int64_t arena) const {
  const size_t n = problem_.buffers.size();
  Plan plan;
  plan.offsets.assign(n, 0);
  std::vector<char> placed(n, 0);
  std::vector<std::pair<int64_t, int64_t>> forbidden;
  for (int32_t x : order) {
    const int64_t size = problem_.buffers[static_cast<size_t>(x)].size;
    forbidden_ranges(x, plan, placed, forbidden);
    // Highest aligned start: the candidate only shrinks, so repeat until no
    // range holds it.
    int64_t candidate = (arena - size) / alignment_ * alignment_;
    for (bool moved = true; moved && candidate >= 0;) {
      moved = false;
      for (const auto& [lo, hi] : forbidden) {
        if (lo < candidate && candidate < hi) {
          candidate = lo >= 0 ? lo / alignment_ * alignment_ : -1;
          moved = true;
        }
      }
    }
    if (candidate < 0) return std::nullopt;
    plan.offsets[static_cast<size_t>(x)] = candidate;
    placed[static_cast<size_t>(x)] = 1;
  }
  for (size_t i = 0; i < n; ++i) {
    plan.arena_size = std::max(plan.arena_size, plan.offsets[i] + problem_.buffers[i].size);
  }
  return plan;
}

}  // namespace dmo

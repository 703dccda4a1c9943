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
      overlaps_of_[static_cast<size_t>(pair.output_buffer)].push_back(
          {pair.input_buffer, pair.safe_overlap, pair.safe_overlap_descending});
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

const OverlapPlacer::Allowance* OverlapPlacer::allowance(int32_t output, int32_t input) const {
  for (const Allowance& a : overlaps_of_[static_cast<size_t>(output)]) {
    if (a.input == input) return &a;
  }
  return nullptr;
}

std::vector<int32_t> OverlapPlacer::by_lifetime(bool (*before)(const Lifetime&, const Lifetime&)) const {
  std::vector<int32_t> order(problem_.buffers.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    return before(problem_.buffers[static_cast<size_t>(a)].lifetime, problem_.buffers[static_cast<size_t>(b)].lifetime);
  });
  return order;
}

std::vector<int32_t> OverlapPlacer::reverse_order() const {
  return by_lifetime([](const Lifetime& a, const Lifetime& b) {
    if (a.last != b.last) return a.last > b.last;
    return a.first > b.first;  // at the same op its output before its inputs
  });
}

std::vector<int32_t> OverlapPlacer::creation_order() const {
  return by_lifetime([](const Lifetime& a, const Lifetime& b) {
    if (a.first != b.first) return a.first < b.first;
    return a.last > b.last;
  });
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
    // Without overlap X must end by T's start or start at T's end. An
    // overlap pair lets X reach into T from below by `below` bytes and from
    // above by `above` bytes: X the output and T its input, an ascending
    // walk puts X below and a descending one above; X the input, the other
    // way round.
    int64_t below = 0, above = 0;
    if (const Allowance* a = allowance(x, t)) {
      below = a->ascending;
      above = a->descending;
    } else if (const Allowance* b = allowance(t, x)) {
      below = b->descending;
      above = b->ascending;
    }
    ranges.emplace_back(t_start - size + below, t_start + t_size - above);
  }
}

void OverlapPlacer::finish(Plan& plan) const {
  for (size_t i = 0; i < problem_.buffers.size(); ++i) {
    plan.arena_size = std::max(plan.arena_size, plan.offsets[i] + problem_.buffers[i].size);
  }
  plan.descending_ops = descending_ops(problem_, plan);
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
  finish(plan);
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
  finish(plan);
  return plan;
}

std::vector<int32_t> descending_ops(const MemoryProblem& problem, const Plan& plan) {
  std::vector<int32_t> ops;
  for (const OverlapPair& pair : problem.overlaps) {
    const auto out = static_cast<size_t>(pair.output_buffer), in = static_cast<size_t>(pair.input_buffer);
    const int64_t out_start = plan.offsets[out], in_start = plan.offsets[in];
    const int64_t out_size = problem.buffers[out].size, in_size = problem.buffers[in].size;
    const bool touch = out_size > 0 && in_size > 0 && out_start < in_start + in_size && in_start < out_start + out_size;
    if (!touch) continue;
    const bool ascending_ok = in_start - out_start >= out_size - pair.safe_overlap;
    const bool descending_ok = pair.safe_overlap_descending > 0 && out_start - in_start >= in_size - pair.safe_overlap_descending;
    if (!ascending_ok && descending_ok) ops.push_back(pair.op);
  }
  std::sort(ops.begin(), ops.end());
  ops.erase(std::unique(ops.begin(), ops.end()), ops.end());
  return ops;
}

}  // namespace dmo

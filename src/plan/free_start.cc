#include "dmo/plan/free_start.h"

#include <algorithm>

#include "dmo/plan/plan.h"

namespace dmo {

namespace {

int64_t align_down(int64_t value, int64_t alignment) {
  const int64_t rounded = value / alignment * alignment;
  return rounded > value ? rounded - alignment : rounded;  // division truncates towards 0
}

}  // namespace

int64_t lowest_free_start(StartRanges& forbidden, int64_t alignment, int64_t from) {
  // The candidate only grows, and only past a range holding it, so it never
  // passes the answer. A few passes in any order usually settle it; planners
  // ask this for every buffer they place, and sorting was most of the cost.
  int64_t candidate = align_up(from, alignment);
  for (int pass = 0; pass < 3; ++pass) {
    bool moved = false;
    for (const auto& [lo, hi] : forbidden) {
      if (lo < candidate && candidate < hi) {
        candidate = align_up(hi, alignment);
        moved = true;
      }
    }
    if (!moved) return candidate;
  }
  // Otherwise one pass by rising start: a range passed (ending at or below
  // the candidate then) never holds it later.
  std::sort(forbidden.begin(), forbidden.end());
  for (const auto& [lo, hi] : forbidden) {
    if (lo >= candidate) break;  // no later range starts below the candidate
    if (candidate < hi) candidate = align_up(hi, alignment);
  }
  return candidate;
}

std::optional<int64_t> highest_free_start(const StartRanges& forbidden, int64_t alignment, int64_t from, int64_t to) {
  // The candidate only shrinks, so repeat until no range holds it.
  int64_t candidate = align_down(to, alignment);
  for (bool moved = true; moved && candidate >= from;) {
    moved = false;
    for (const auto& [lo, hi] : forbidden) {
      if (lo < candidate && candidate < hi) {
        candidate = align_down(lo, alignment);
        moved = true;
      }
    }
  }
  if (candidate < from) return std::nullopt;
  return candidate;
}

}  // namespace dmo

#include "dmo/plan/alias_groups.h"

#include <fmt/format.h>

#include <algorithm>

#include "dmo/error.h"

namespace dmo {

AliasGroups::AliasGroups(const MemoryProblem& problem) : problem_(problem) {
  const auto n = static_cast<int32_t>(problem.buffers.size());
  auto in_range = [&](int32_t b) { return b >= 0 && b < n; };
  std::vector<const BufferAlias*> alias_of(static_cast<size_t>(n), nullptr);
  for (const BufferAlias& alias : problem.aliases) {
    if (!in_range(alias.buffer) || !in_range(alias.base)) {
      throw Error(fmt::format("alias of buffer {} to buffer {} names a buffer out of range ({} buffers)",
                              alias.buffer, alias.base, n));
    }
    const BufferAlias*& slot = alias_of[static_cast<size_t>(alias.buffer)];
    if (slot) throw Error(fmt::format("buffer {} is aliased twice", alias.buffer));
    slot = &alias;
  }
  root_.resize(static_cast<size_t>(n));
  offset_in_root_.assign(static_cast<size_t>(n), 0);
  for (int32_t b = 0; b < n; ++b) {
    int32_t at = b;
    int64_t offset = 0;
    // A chain longer than the buffer count must revisit a buffer.
    for (int32_t steps = 0; alias_of[static_cast<size_t>(at)]; ++steps) {
      if (steps == n) throw Error(fmt::format("buffer {} is in an alias cycle", b));
      offset += alias_of[static_cast<size_t>(at)]->offset;
      at = alias_of[static_cast<size_t>(at)]->base;
    }
    root_[static_cast<size_t>(b)] = at;
    offset_in_root_[static_cast<size_t>(b)] = offset;
  }
  member_begin_.assign(static_cast<size_t>(n) + 1, 0);
  for (int32_t b = 0; b < n; ++b) ++member_begin_[static_cast<size_t>(root(b)) + 1];
  for (size_t r = 0; r < static_cast<size_t>(n); ++r) member_begin_[r + 1] += member_begin_[r];
  members_.resize(static_cast<size_t>(n));
  std::vector<int32_t> next(member_begin_.begin(), member_begin_.end() - 1);
  // The root first, then the other members by index.
  for (int32_t b = 0; b < n; ++b) {
    if (is_root(b)) members_[static_cast<size_t>(next[static_cast<size_t>(b)]++)] = b;
  }
  for (int32_t b = 0; b < n; ++b) {
    if (!is_root(b)) members_[static_cast<size_t>(next[static_cast<size_t>(root(b))]++)] = b;
  }
  fixed_root_offset_.resize(static_cast<size_t>(n));
  for (int32_t b = 0; b < n; ++b) {
    const std::optional<int64_t>& fixed = problem.buffers[static_cast<size_t>(b)].fixed_offset;
    if (!fixed) continue;
    const int64_t implied = *fixed - offset_in_root(b);
    std::optional<int64_t>& slot = fixed_root_offset_[static_cast<size_t>(root(b))];
    if (slot && *slot != implied) {
      throw Error(fmt::format("buffer {}'s fixed offset {} disagrees with another fixed offset in its alias group", b,
                              *fixed));
    }
    slot = implied;
  }
  for (int32_t r = 0; r < n; ++r) {
    const std::optional<int64_t>& fixed = fixed_root_offset_[static_cast<size_t>(r)];
    if (fixed && *fixed < lowest_root_offset(r)) {
      throw Error(fmt::format("the fixed offsets of buffer {}'s alias group put a buffer below offset 0", r));
    }
  }
}

int64_t AliasGroups::alignment(int32_t root, int64_t default_alignment) const {
  int64_t result = alignment_of(problem_.buffers[static_cast<size_t>(root)], default_alignment);
  for (int32_t m : members(root)) result = std::max(result, problem_.buffers[static_cast<size_t>(m)].alignment);
  return result;
}

int64_t AliasGroups::lowest_root_offset(int32_t root) const {
  int64_t lowest = 0;
  for (int32_t m : members(root)) lowest = std::max(lowest, -offset_in_root(m));
  return lowest;
}

}  // namespace dmo

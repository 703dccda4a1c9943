// Buffers tied together by a MemoryProblem's aliases. Each group has a root
// (a buffer that is a view into nothing) and every member's offset from the
// root's, so a planner places a group as one piece and no plan can change
// the members' relative positions.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "dmo/plan/memory_problem.h"

namespace dmo {

class AliasGroups {
 public:
  // Throws dmo::Error naming the buffer for an alias out of range, a buffer
  // aliased twice, an alias cycle, fixed offsets in one group that
  // disagree, or a fixed offset that puts a member below 0.
  explicit AliasGroups(const MemoryProblem& problem);

  int32_t root(int32_t buffer) const { return root_[static_cast<size_t>(buffer)]; }
  bool is_root(int32_t buffer) const { return root(buffer) == buffer; }
  bool same_group(int32_t a, int32_t b) const { return root(a) == root(b); }
  // offset(buffer) - offset(root(buffer)).
  int64_t offset_in_root(int32_t buffer) const { return offset_in_root_[static_cast<size_t>(buffer)]; }
  // The group of a root, root first; empty for other buffers.
  std::span<const int32_t> members(int32_t root) const {
    const auto r = static_cast<size_t>(root);
    return std::span<const int32_t>(members_).subspan(static_cast<size_t>(member_begin_[r]),
                                                      static_cast<size_t>(member_begin_[r + 1] - member_begin_[r]));
  }
  // The root's offset the group's fixed offsets imply, if it has any.
  const std::optional<int64_t>& fixed_root_offset(int32_t root) const {
    return fixed_root_offset_[static_cast<size_t>(root)];
  }
  // The alignment the root's offset needs so that every member meets its
  // own: the root's (or the default), and the members' explicit ones.
  int64_t alignment(int32_t root, int64_t default_alignment) const;
  // The lowest offset the root may take so no member starts below 0.
  int64_t lowest_root_offset(int32_t root) const;

 private:
  const MemoryProblem& problem_;
  std::vector<int32_t> root_;
  std::vector<int64_t> offset_in_root_;
  // Every group's members in one list, group after group (a problem is
  // built and planned hundreds of times in a split search: one allocation,
  // not one per buffer); root r's are members_[member_begin_[r] ..
  // member_begin_[r + 1]).
  std::vector<int32_t> members_;
  std::vector<int32_t> member_begin_;
  std::vector<std::optional<int64_t>> fixed_root_offset_;
};

}  // namespace dmo

// First-fit placement of buffers in a given order, honouring overlap pairs:
// each buffer goes to the lowest aligned offset where it collides with no
// placed buffer whose lifetime intersects, except that an op's output may
// sit below its dying input with the input starting |O| - O_s above it
// (ascending walk) or above it starting |I| - O_s_descending above the
// input (descending walk). An op with several pairs walks one way for all of
// them. Fixed buffers go first, exactly where the problem puts them; an
// alias group is placed as one piece, at its root's alignment and at
// offsets that keep every member at its own. The plan records which ops
// must walk descending. Its arena is measured as TFLM measures it: each
// buffer ends at its offset plus its size rounded up to `end_rounding`.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "dmo/plan/alias_groups.h"
#include "dmo/plan/free_start.h"
#include "dmo/plan/memory_problem.h"
#include "dmo/plan/plan.h"

namespace dmo {

class OverlapPlacer {
 public:
  // `use_overlaps` false ignores the problem's overlap pairs; `alignment`
  // is the default for buffers that name none; `end_rounding` what sizes
  // are rounded up to where the arena's size is measured (1: exact). Throws
  // dmo::Error for bad aliases (see AliasGroups).
  OverlapPlacer(const MemoryProblem& problem, int64_t alignment, bool use_overlaps, int64_t end_rounding = 1);

  // Places the buffers in `order` (a permutation of buffer indices).
  Plan place(const std::vector<int32_t>& order) const;
  // The conflicts walked by every placement so far (each buffer added
  // walks those of its group's members): what a search's budget counts.
  int64_t work() const { return work_; }

  enum class Walk : char { kUndecided, kAscending, kDescending };
  // A placement under way: the groups placed so far and the walks they
  // need. place() is start(), add() in order, then finish(); a copy lets
  // orders sharing a prefix place it once.
  struct Partial {
    Plan plan;
    std::vector<char> placed;
    std::vector<Walk> walks;  // per op with an overlap pair (OverlapPlacer's own numbering)
    int64_t top = 0;          // the highest counted end placed: the arena is at least this
  };
  // The fixed groups, exactly where the problem puts them.
  Partial start() const;
  // Buffer's group at the lowest offset free for it (nothing when placed).
  void add(Partial& partial, int32_t buffer) const;
  // Whether two placements have placed the same buffers at the same
  // offsets and settled the same walks: placing the same buffers after
  // each leads to the same plan.
  static bool same(const Partial& a, const Partial& b) {
    return a.placed == b.placed && a.plan.offsets == b.plan.offsets && a.walks == b.walks;
  }
  // The plan once every buffer is placed.
  Plan finish(Partial&& partial) const;

  // An order's placement after each of its first k buffers, for every k,
  // kept in O(n): when each buffer was placed and each walk decided, and
  // the top after each prefix (n copies of a Partial would be O(n^2)).
  struct Track {
    Partial whole;                   // after every buffer of the order
    std::vector<int32_t> placed_at;  // per buffer: how many adds had run before it was placed (-1: by start())
    std::vector<int32_t> decided_at; // per walk, the same for it (INT32_MAX: never decided)
    std::vector<int64_t> top;        // per prefix length k, 0..n
    // Per add: the highest counted end of the group it placed (0: none),
    // and whether it settled a walk.
    std::vector<int64_t> end_at;
    std::vector<char> settles_walk;
  };
  Track track(const std::vector<int32_t>& order) const;
  // The placement after the first k buffers of the tracked order, into
  // `partial` (its vectors reused: a search builds one per move).
  void prefix(const Track& track, int32_t k, Partial& partial) const;
  // same(partial, prefix(track, k)), without building the prefix.
  static bool same_as_prefix(const Partial& partial, const Track& track, int32_t k);
  // Adds order[k], order[k + 1], ... but order[skip] (`order` the tracked
  // one) to `partial` until its top reaches `limit` or all are placed, as
  // add() would. `partial` has placed the buffers of the track's first k,
  // some maybe elsewhere or with other walks; with `skip`, it is exactly
  // the track's first k and order[skip]'s group, placed anywhere. A buffer
  // that conflicts with none placed elsewhere (or not by the track at that
  // point), and has no pair whose walk differs, lands where the track put
  // it and settles the walks it did, so it is copied from the track; only
  // the others are placed (and join the differences where they land
  // elsewhere). O(n) per call, and add() for the buffers reached.
  void follow(const Track& track, const std::vector<int32_t>& order, int32_t k, Partial& partial, int64_t limit,
              int32_t skip = -1) const;

  // Places the buffers in `order` at the HIGHEST aligned offset that keeps
  // each (its counted end) inside [0, arena): with the creation order this lets a chain of
  // diagonal overlaps step down through the arena and jump back up wherever
  // there is room. Nothing when some buffer finds no place (or a fixed one
  // ends above the arena).
  std::optional<Plan> place_highest(const std::vector<int32_t>& order, int64_t arena) const;

  // Buffers by first use (creation order), the order ops produce them.
  std::vector<int32_t> creation_order() const;

  // Order of the reverse-order heap: buffers by descending last use (the
  // last op's tensors first), so an op's output is placed before its inputs.
  std::vector<int32_t> reverse_order() const;

 private:
  struct Allowance {
    int32_t input;
    int32_t walk;  // the pair's op, numbered as Partial::walks
    int64_t ascending, descending;  // the pair's safe overlaps
  };
  // How far a buffer may reach into another from below and from above.
  struct Reach {
    int64_t below = 0, above = 0;
  };
  // A buffer whose lifetime intersects another's, of another group.
  struct Conflict {
    int32_t buffer;
    bool paired;  // an overlap pair joins the two: reach() may allow more
  };
  // Buffer indices stably sorted by their lifetimes.
  std::vector<int32_t> by_lifetime(bool (*before)(const Lifetime&, const Lifetime&)) const;
  // What the overlap pairs between x and t allow, given the ops' walks.
  Reach reach(int32_t x, int32_t t, const std::vector<Walk>& walks) const;
  // Forbidden open ranges for the offset of alias group `root`.
  void forbidden_ranges(int32_t root, const Partial& partial, StartRanges& ranges) const;
  // Puts group `root` at `offset`; records the walks its touching pairs
  // need. False (nothing recorded) when an undecided op would need both;
  // that op (its index in Partial::walks) is then `mixed_walk`.
  bool put(int32_t root, int64_t offset, Partial& partial, int32_t& mixed_walk) const;
  void unput(int32_t root, Partial& partial) const;
  // Raises partial.top to the placed group's counted ends.
  void raise_top(int32_t root, Partial& partial) const;
  // Buffer's group at `choose(root, ranges)`; false when that finds no place.
  template <typename Choose>
  bool add_with(Partial& partial, int32_t buffer, Choose choose) const;
  // Buffer b's size as the arena's size counts it.
  int64_t counted_size(size_t b) const { return align_up(problem_.buffers[b].size, end_rounding_); }
  // Bytes from a group root's offset to the highest counted end of its members.
  int64_t counted_extent_above_root(int32_t root) const;

  const MemoryProblem& problem_;
  int64_t alignment_;
  int64_t end_rounding_;
  AliasGroups groups_;
  std::vector<std::vector<Allowance>> overlaps_of_;  // per output buffer
  std::vector<std::vector<int32_t>> pairs_of_;       // overlap pair indices per buffer (either side)
  // Per overlap pair, its op's index in Partial::walks: only ops with a
  // pair have a walk to settle, and a split schedule has many steps
  // without one, so a placement's copies and comparisons skip those.
  std::vector<int32_t> walk_of_pair_;
  std::vector<std::vector<int32_t>> pairs_of_walk_;  // per walk, its pairs
  int32_t walk_count_ = 0;
  std::vector<std::vector<Conflict>> conflicts_;     // per buffer
  std::vector<int64_t> root_alignment_;              // per group root: groups_.alignment
  std::vector<int64_t> lowest_root_offset_;          // per group root
  mutable int64_t work_ = 0;                         // see work()
};

// The ops with an overlap pair the plan uses from above (output above its
// input), so their kernels must walk descending; sorted.
std::vector<int32_t> descending_ops(const MemoryProblem& problem, const Plan& plan);

// The arena a plan needs when every buffer's size is rounded up to
// `end_rounding`: max(offset + rounded size).
int64_t rounded_arena_bytes(const MemoryProblem& problem, const Plan& plan, int64_t end_rounding);

}  // namespace dmo

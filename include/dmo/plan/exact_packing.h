// Exact packing of a few buffers by branch and bound: the smallest arena
// they fit in, optionally around buffers already placed (which stay where
// they are), within a node budget.
//
// The packings are those dmo's figures measure: offsets multiples of
// `alignment`, the arena max(offset + size rounded up to `end_rounding`).
// Two buffers live together may share bytes only as an overlap pair allows
// (plan_validator.h): with up(c, b) the least distance b's start may lie
// above c's, the allowed d = x_b - x_c are d >= up(c, b) or d <= -up(b, c);
// up(c, b) is |c|, or for a pair with output c and input b |O| - O_s, for
// a pair with output b and input c |I| - O_s_descending (the least over
// pairs joining the two). Each pair may take either side independently,
// where a plan makes all of an op's pairs walk one way: a relaxation, so
// the optimum is still a lower bound.
//
// Normal form (why the search may try only a few offsets). Take an optimal
// packing and, while some set of buffers at one offset L > 0 can move down
// by `alignment` together and stay valid, move it: the arena does not grow
// and the sum of offsets falls, so this ends. In the packing reached, every
// buffer b at L > 0 has a support: a buffer c with L - alignment infeasible
// against c and L feasible, so L = x_c + up(c, b) rounded up to the
// alignment (the smallest feasible d above the forbidden open interval
// (-up(b, c), up(c, b))). If x_c < L, b is a root at L; otherwise up(c, b)
// = 0 and c is at L too. Every non-root at L reaches a root at L (or L = 0)
// along supports: otherwise the non-roots closed under their supports
// could move down together (their supports are among them, and moving
// down keeps every other constraint: a buffer above stays above it, and
// one below does not support it). So listing the buffers by offset, at each
// offset the roots by index and then the non-roots each after a support,
// every buffer's offset is 0 or x_c + up(c, b) rounded up, for a c listed
// before it. The search enumerates exactly such lists, with up(c, b) >= 0
// (a pair with O_s > |O| would allow negative steps: its buffers are left
// out of the subsets).
//
// Buffers already placed (`fixed`) are obstacles: they stay, and an offset
// x_c + up(c, b) from one of them is a root (it needs no buffer listed
// before it), so the argument above holds with them too. When the walks
// are given (a plan's descending ops) each pair allows only its op's side,
// as a plan built on those walks must; without them either side (the
// relaxation a lower bound wants).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "dmo/plan/memory_problem.h"

namespace dmo {

struct ExactPackingOptions {
  int64_t alignment = 16;     // offsets are multiples of this
  int64_t end_rounding = 16;  // sizes rounded up to this where the arena is measured
  int64_t node_budget = 20000;
  // Stop once no packing below this is possible: the answer is then this.
  std::optional<int64_t> ceiling{};
  // Stop at the first packing whose arena is at most this (a lower bound
  // known elsewhere, or a target any packing under will do).
  std::optional<int64_t> good_enough{};
};

// The smallest arena of the given buffers alone (none aliased or fixed;
// alignment 0 or a multiple of options.alignment), at most options.ceiling;
// nothing when the node budget runs out first. `nodes` counts the nodes
// searched when given.
std::optional<int64_t> exact_subset_arena_bytes(const MemoryProblem& problem, std::span<const int32_t> buffers,
                                                const ExactPackingOptions& options, int64_t* nodes = nullptr);

// A buffer that stays where it is while others are packed around it.
struct PlacedBuffer {
  int32_t buffer = 0;
  int64_t offset = 0;
};

// Offsets for `movable` (eligible buffers, see below), in that order, such
// that every one is valid against the others and against `fixed`, each
// pair allowing only the side its op walks (`descending_ops` as in Plan),
// and the arena they and `fixed` make is the smallest such, below
// options.ceiling. Nothing when no packing is below the ceiling or the
// node budget runs out first. `nodes` counts the nodes searched when given.
std::optional<std::vector<int64_t>> exact_packing_around(const MemoryProblem& problem,
                                                         std::span<const int32_t> movable,
                                                         std::span<const PlacedBuffer> fixed,
                                                         std::span<const int32_t> descending_ops,
                                                         const ExactPackingOptions& options, int64_t* nodes = nullptr);

// The buffers exact packing may move: non-zero size, in no alias group,
// not fixed, with an alignment the packing's lattice honours, and in no
// overlap pair allowing a negative step.
std::vector<char> window_eligible_buffers(const MemoryProblem& problem, int64_t alignment);

// Of those, the ones a re-packing of a plan may move (peak_repair.h,
// rolling_packing.h): its offsets are multiples of the default
// `alignment`, so a buffer needing more stays where it is. (A lower bound
// may pack them on the finer lattice: a relaxation.)
std::vector<char> movable_buffers(const MemoryProblem& problem, int64_t alignment);

// A window of times grown from `centre` a time at a time, on the side
// adding fewer buffers, while the `eligible` buffers live in it (all but
// `excluded`) are at most `max_buffers`: those buffers. Nothing when the
// centre alone has more.
std::optional<std::vector<int32_t>> window_buffers(const MemoryProblem& problem, const std::vector<char>& eligible,
                                                   int32_t centre, int32_t max_buffers, int32_t excluded = -1);

}  // namespace dmo

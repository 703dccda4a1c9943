// First-fit placement of buffers in a given order, honouring overlap pairs:
// each buffer goes to the lowest aligned offset where it collides with no
// placed buffer whose lifetime intersects, except that an op's output may
// sit below its dying input with the input starting |O| - O_s above it
// (ascending walk) or above it starting |I| - O_s_descending above the
// input (descending walk). The plan records which ops must walk descending.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "dmo/plan/memory_problem.h"
#include "dmo/plan/plan.h"

namespace dmo {

class OverlapPlacer {
 public:
  // `use_overlaps` false ignores the problem's overlap pairs.
  OverlapPlacer(const MemoryProblem& problem, int64_t alignment, bool use_overlaps);

  // Places the buffers in `order` (a permutation of buffer indices).
  Plan place(const std::vector<int32_t>& order) const;

  // Places the buffers in `order` at the HIGHEST aligned offset that keeps
  // each inside [0, arena): with the creation order this lets a chain of
  // diagonal overlaps step down through the arena and jump back up wherever
  // there is room. Nothing when some buffer finds no place.
  std::optional<Plan> place_highest(const std::vector<int32_t>& order, int64_t arena) const;

  // Buffers by first use (creation order), the order ops produce them.
  std::vector<int32_t> creation_order() const;

  // Order of the reverse-order heap: buffers by descending last use (the
  // last op's tensors first), so an op's output is placed before its inputs.
  std::vector<int32_t> reverse_order() const;

 private:
  struct Allowance {
    int32_t input;
    int64_t ascending, descending;  // the pair's safe overlaps
  };
  // Buffer indices stably sorted by their lifetimes.
  std::vector<int32_t> by_lifetime(bool (*before)(const Lifetime&, const Lifetime&)) const;
  // The overlap pair of (output, input), if there is one.
  const Allowance* allowance(int32_t output, int32_t input) const;
  // Arena size and the ops that must walk descending.
  void finish(Plan& plan) const;
  // Forbidden open ranges for the start of `x` given the placed buffers.
  void forbidden_ranges(int32_t x, const Plan& plan, const std::vector<char>& placed,
                        std::vector<std::pair<int64_t, int64_t>>& ranges) const;

  const MemoryProblem& problem_;
  int64_t alignment_;
  std::vector<std::vector<Allowance>> overlaps_of_;  // per output buffer
  std::vector<std::vector<int32_t>> conflicts_;                      // buffers with intersecting lifetimes
};

// The ops whose overlap pair the plan uses from above (output above its
// input), so their kernels must walk descending; sorted.
std::vector<int32_t> descending_ops(const MemoryProblem& problem, const Plan& plan);

}  // namespace dmo

// First-fit placement of buffers in a given order, honouring overlap pairs:
// each buffer goes to the lowest aligned offset where it collides with no
// placed buffer whose lifetime intersects, except that an op's output may
// sit below its dying input with the input starting |O| - O_s above it.
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
  // Allowed overlap of (lower, upper) when `lower` is an output and `upper`
  // its dying input; 0 otherwise.
  int64_t overlap(int32_t lower, int32_t upper) const;
  // Forbidden open ranges for the start of `x` given the placed buffers.
  void forbidden_ranges(int32_t x, const Plan& plan, const std::vector<char>& placed,
                        std::vector<std::pair<int64_t, int64_t>>& ranges) const;

  const MemoryProblem& problem_;
  int64_t alignment_;
  std::vector<std::vector<std::pair<int32_t, int64_t>>> overlaps_of_;  // per output buffer: (input, O_s)
  std::vector<std::vector<int32_t>> conflicts_;                      // buffers with intersecting lifetimes
};

}  // namespace dmo

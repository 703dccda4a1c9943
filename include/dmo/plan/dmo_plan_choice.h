// The plans dmo reports for a problem: dmo's planner with overlaps, never
// above TFLM's greedy plan of the same problem (that plan is taken when it
// is smaller), walking descending only where that saves bytes. Plans come
// as TFLM lays them out (tflm_layout.h): buffers that are no tensor
// (kernels' scratch buffers) where TFLM's first fit puts them, and the
// arena TFLM's head needs. Every plan is checked by the validator before
// it is returned.
#pragma once

#include <cstdint>
#include <optional>

#include "dmo/plan/memory_problem.h"
#include "dmo/plan/plan.h"

namespace dmo {

struct DmoPlanChoice {
  Plan dmo;
  // Every op walking ascending (TFLite's kernels); == dmo when dmo walks
  // no op descending.
  Plan dmo_ascending;
};

// Throws std::logic_error when a planner's plan fails validation.
DmoPlanChoice choose_dmo_plan(const MemoryProblem& problem, int64_t alignment);

// The same, also planning `stricter`: the same buffers and pairs with
// lifetimes at least as long, so each of its plans is valid for `problem`.
// Each plan is the smaller of the two (the planner's orders follow the
// lifetimes, and shorter ones can lead them astray); `stricter` is not
// planned when the first plans are at the bound. `bound`:
// chain_lower_bound_with_overlap_bytes(problem) when the caller has it.
DmoPlanChoice choose_dmo_plan(const MemoryProblem& problem, const MemoryProblem& stricter, int64_t alignment,
                              std::optional<int64_t> bound = std::nullopt);

// dmo's plan only (choose_dmo_plan's `dmo` without the ascending-only
// plan it may take instead) and the same, the smaller of `problem`'s and `stricter`'s: what a
// search comparing arenas needs, without the ascending-only plans. (Where
// the ascending-only plan packs tighter, choose_dmo_plan's is smaller.)
Plan choose_dmo_plan_only(const MemoryProblem& problem, int64_t alignment);
Plan choose_dmo_plan_only(const MemoryProblem& problem, const MemoryProblem& stricter, int64_t alignment,
                          std::optional<int64_t> bound = std::nullopt);

}  // namespace dmo

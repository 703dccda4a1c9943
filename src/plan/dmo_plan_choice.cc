#include "dmo/plan/dmo_plan_choice.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "dmo/plan/bounds.h"
#include "dmo/plan/dmo_planner.h"
#include "dmo/plan/plan_validator.h"
#include "dmo/plan/tflm_greedy_planner.h"
#include "dmo/plan/tflm_layout.h"

namespace dmo {

namespace {

void require_valid(const MemoryProblem& problem, const Plan& plan, int64_t alignment) {
  std::vector<std::string> errors = validate_plan(problem, plan, alignment);
  if (!errors.empty()) throw std::logic_error(fmt::format("{} plan is invalid: {}", plan.planner, errors.front()));
}

// Never worse than what users have today. TFLM's offsets are multiples of
// its 16 bytes, so at a larger alignment it rounds to that instead. Both
// plans are compared as TFLM lays them out: tensors where the plan puts
// them, scratch buffers where TFLM's first fit puts them around those.
Plan plan_no_worse_than_tflm(const MemoryProblem& problem, int64_t alignment) {
  DmoPlannerOptions options;
  options.alignment = alignment;
  Plan plan = plan_dmo(problem, options);
  require_valid(problem, plan, alignment);
  const int64_t tflm_alignment = std::max(alignment, kTflmBufferAlignment);
  plan = tflm_layout(problem, plan, tflm_alignment);
  require_valid(problem, plan, alignment);
  Plan tflm = plan_tflm_greedy(problem, tflm_alignment);
  if (validate_plan(problem, tflm, alignment).empty()) {
    tflm = tflm_layout(problem, tflm, tflm_alignment);
    if (tflm.arena_size < plan.arena_size && validate_plan(problem, tflm, alignment).empty()) {
      plan = std::move(tflm);
      plan.planner = "dmo (TFLM greedy order)";
    }
  }
  return plan;
}

}  // namespace

DmoPlanChoice choose_dmo_plan(const MemoryProblem& problem, int64_t alignment) {
  DmoPlanChoice choice;
  choice.dmo = plan_no_worse_than_tflm(problem, alignment);
  if (choice.dmo.descending_ops.empty()) {
    choice.dmo_ascending = choice.dmo;
    return choice;
  }
  MemoryProblem ascending = problem;
  for (OverlapPair& pair : ascending.overlaps) pair.safe_overlap_descending = 0;
  choice.dmo_ascending = plan_no_worse_than_tflm(ascending, alignment);
  // An ascending plan of the same size also runs on TFLM's kernels.
  if (choice.dmo_ascending.arena_size <= choice.dmo.arena_size) choice.dmo = choice.dmo_ascending;
  return choice;
}

namespace {

// The bound no plan of `problem` is below, rounded as TFLM rounds the arena.
int64_t rounded_bound(const MemoryProblem& problem, int64_t alignment, std::optional<int64_t> bound) {
  const int64_t rounding = std::max(alignment, kTflmBufferAlignment);
  const int64_t lowest = bound ? *bound : chain_lower_bound_with_overlap_bytes(problem);
  return (lowest + rounding - 1) / rounding * rounding;
}

}  // namespace

DmoPlanChoice choose_dmo_plan(const MemoryProblem& problem, const MemoryProblem& stricter, int64_t alignment,
                              std::optional<int64_t> bound) {
  DmoPlanChoice choice = choose_dmo_plan(problem, alignment);
  const int64_t rounded = rounded_bound(problem, alignment, bound);
  if (choice.dmo.arena_size <= rounded && choice.dmo_ascending.arena_size <= choice.dmo.arena_size) return choice;
  DmoPlanChoice strict = choose_dmo_plan(stricter, alignment);
  require_valid(problem, strict.dmo, alignment);
  require_valid(problem, strict.dmo_ascending, alignment);
  if (strict.dmo.arena_size < choice.dmo.arena_size) choice.dmo = std::move(strict.dmo);
  if (strict.dmo_ascending.arena_size < choice.dmo_ascending.arena_size) {
    choice.dmo_ascending = std::move(strict.dmo_ascending);
  }
  return choice;
}

Plan choose_dmo_plan_only(const MemoryProblem& problem, int64_t alignment) {
  return plan_no_worse_than_tflm(problem, alignment);
}

Plan choose_dmo_plan_only(const MemoryProblem& problem, const MemoryProblem& stricter, int64_t alignment,
                          std::optional<int64_t> bound) {
  Plan plan = plan_no_worse_than_tflm(problem, alignment);
  if (plan.arena_size <= rounded_bound(problem, alignment, bound)) return plan;
  Plan strict = plan_no_worse_than_tflm(stricter, alignment);
  require_valid(problem, strict, alignment);
  return strict.arena_size < plan.arena_size ? strict : plan;
}

}  // namespace dmo

#include "dmo/plan/dmo_plan_choice.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
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
Plan plan_no_worse_than_tflm(const MemoryProblem& problem, int64_t alignment, bool repair_peak) {
  DmoPlannerOptions options;
  options.alignment = alignment;
  options.repair_peak = repair_peak;
  options.pack_rolling = repair_peak;
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

DmoPlanChooser::DmoPlanChooser(const MemoryProblem& problem, int64_t alignment, std::optional<int64_t> bound)
    : problem_(problem), alignment_(alignment), bound_(bound) {}

DmoPlanChooser::DmoPlanChooser(const MemoryProblem& problem, MemoryProblem stricter, int64_t alignment,
                               std::optional<int64_t> bound)
    : problem_(problem), stricter_(std::move(stricter)), alignment_(alignment), bound_(bound) {}

const Plan& DmoPlanChooser::dmo_of(const MemoryProblem& problem, Planned& planned) {
  if (!planned.dmo) {
    planned.dmo = plan_no_worse_than_tflm(problem, alignment_, repair_peak_);
    // A stricter plan is valid for the problem itself: checked against it.
    if (&problem != &problem_) require_valid(problem_, *planned.dmo, alignment_);
  }
  return *planned.dmo;
}

DmoPlanChoice DmoPlanChooser::choice_of(const MemoryProblem& problem, Planned& planned) {
  DmoPlanChoice choice;
  const bool walks_matter = std::any_of(problem.overlaps.begin(), problem.overlaps.end(),
                                        [](const OverlapPair& pair) { return pair.safe_overlap_descending > 0; });
  if (!walks_matter) {
    choice.dmo = dmo_of(problem, planned);
    choice.dmo_ascending = choice.dmo;
    return choice;
  }
  // The ascending plan first: when it reaches the bound of the problem with
  // both walks, no plan is smaller, and the one plan serves both.
  if (!planned.ascending) {
    MemoryProblem ascending = problem;
    for (OverlapPair& pair : ascending.overlaps) pair.safe_overlap_descending = 0;
    planned.ascending = plan_no_worse_than_tflm(ascending, alignment_, repair_peak_);
    if (&problem != &problem_) require_valid(problem_, *planned.ascending, alignment_);
  }
  choice.dmo_ascending = *planned.ascending;
  // Offsets are multiples of the alignment and sizes are rounded up to 16:
  // every arena is a multiple of their gcd, so none is below the bound
  // rounded up to it.
  const int64_t granule = std::gcd(std::max<int64_t>(alignment_, 1), kTflmBufferAlignment);
  const int64_t bound = (bound_of(problem) + granule - 1) / granule * granule;
  if (choice.dmo_ascending.arena_size <= bound) {
    choice.dmo = choice.dmo_ascending;
    return choice;
  }
  choice.dmo = dmo_of(problem, planned);
  // An ascending plan of the same size also runs on TFLM's kernels; a
  // smaller plan walking only ascending is the better ascending plan.
  if (choice.dmo_ascending.arena_size <= choice.dmo.arena_size) {
    choice.dmo = choice.dmo_ascending;
  } else if (choice.dmo.descending_ops.empty()) {
    choice.dmo_ascending = choice.dmo;
  }
  return choice;
}

int64_t DmoPlanChooser::bound_of(const MemoryProblem& problem) {
  if (&problem != &problem_) return chain_lower_bound_with_overlap_bytes(problem);
  if (!bound_) bound_ = chain_lower_bound_with_overlap_bytes(problem_);
  return *bound_;
}

int64_t DmoPlanChooser::rounded_bound() {
  const int64_t rounding = std::max(alignment_, kTflmBufferAlignment);
  return (bound_of(problem_) + rounding - 1) / rounding * rounding;
}

DmoPlanChooser& DmoPlanChooser::without_peak_repair() {
  repair_peak_ = false;
  return *this;
}

Plan DmoPlanChooser::dmo_only() {
  const Plan& plan = dmo_of(problem_, planned_);
  if (!stricter_ || plan.arena_size <= rounded_bound()) return plan;
  const Plan& strict = dmo_of(*stricter_, planned_stricter_);
  return strict.arena_size < plan.arena_size ? strict : plan;
}

DmoPlanChoice DmoPlanChooser::choice() {
  DmoPlanChoice choice = choice_of(problem_, planned_);
  if (!stricter_) return choice;
  if (choice.dmo.arena_size <= rounded_bound() && choice.dmo_ascending.arena_size <= choice.dmo.arena_size) {
    return choice;
  }
  DmoPlanChoice strict = choice_of(*stricter_, planned_stricter_);
  if (strict.dmo.arena_size < choice.dmo.arena_size) choice.dmo = std::move(strict.dmo);
  if (strict.dmo_ascending.arena_size < choice.dmo_ascending.arena_size) {
    choice.dmo_ascending = std::move(strict.dmo_ascending);
  }
  return choice;
}

DmoPlanChoice choose_dmo_plan(const MemoryProblem& problem, int64_t alignment) {
  return DmoPlanChooser(problem, alignment).choice();
}

DmoPlanChoice choose_dmo_plan(const MemoryProblem& problem, const MemoryProblem& stricter, int64_t alignment,
                              std::optional<int64_t> bound) {
  return DmoPlanChooser(problem, stricter, alignment, bound).choice();
}

Plan choose_dmo_plan_only(const MemoryProblem& problem, int64_t alignment) {
  return DmoPlanChooser(problem, alignment).dmo_only();
}

Plan choose_dmo_plan_only(const MemoryProblem& problem, const MemoryProblem& stricter, int64_t alignment,
                          std::optional<int64_t> bound) {
  return DmoPlanChooser(problem, stricter, alignment, bound).dmo_only();
}

}  // namespace dmo

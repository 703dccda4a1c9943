// The plans dmo reports for a problem: dmo's planner with overlaps, never
// above TFLM's greedy plan of the same problem (that plan is taken when it
// is smaller), walking descending only where that saves bytes. Plans come
// as TFLM lays them out (tflm_layout.h): buffers that are no tensor
// (kernels' scratch buffers) where TFLM's first fit puts them, and the
// arena TFLM's head needs. Every plan is checked by the validator before
// it is returned. Where a walk could matter, the ascending-only plan is
// made first: when it reaches the bound of the problem with both walks, no
// plan is smaller, and the planner does not run again for both walks.
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

// The functions above for one problem (and its `stricter` twin), each
// planner run made at most once: a search asks for dmo's plan only and,
// for a candidate that may win, for the whole choice, which starts from
// the same plans. Keeps a reference to `problem`.
class DmoPlanChooser {
 public:
  // `bound`: chain_lower_bound_with_overlap_bytes(problem) when the caller has it.
  DmoPlanChooser(const MemoryProblem& problem, int64_t alignment, std::optional<int64_t> bound = std::nullopt);
  DmoPlanChooser(const MemoryProblem& problem, MemoryProblem stricter, int64_t alignment,
                 std::optional<int64_t> bound = std::nullopt);
  // Plans without dmo's peak repair and rolling packing
  // (DmoPlannerOptions::repair_peak, pack_rolling): for
  // a search comparing many candidates, which plans the one it keeps in full.
  DmoPlanChooser& without_peak_repair();
  // choose_dmo_plan_only's plan.
  Plan dmo_only();
  // choose_dmo_plan's plans.
  DmoPlanChoice choice();

 private:
  // The plan of `problem` (or of `stricter_`) and its ascending-only
  // plan, each made when first needed.
  struct Planned {
    std::optional<Plan> dmo, ascending;
  };
  const Plan& dmo_of(const MemoryProblem& problem, Planned& planned);
  DmoPlanChoice choice_of(const MemoryProblem& problem, Planned& planned);
  // chain_lower_bound_with_overlap_bytes of `problem`, problem_'s kept.
  int64_t bound_of(const MemoryProblem& problem);
  // problem_'s bound rounded as TFLM rounds the arena.
  int64_t rounded_bound();

  const MemoryProblem& problem_;
  std::optional<MemoryProblem> stricter_;
  int64_t alignment_;
  bool repair_peak_ = true;
  std::optional<int64_t> bound_;
  Planned planned_, planned_stricter_;
};

}  // namespace dmo

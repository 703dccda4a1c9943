// A last step for dmo's planner: lowers a plan's arena by re-packing,
// exactly (exact_packing.h), small windows of time around the buffers that
// reach its top, every buffer outside the window staying where it is. When
// every buffer at the top moves below it, the arena falls and the step
// repeats on the new top; it stops at `floor` (a lower bound), when a top
// buffer cannot move (not eligible for packing, or no packing of its window
// is below the top) or when its work budget runs out. A buffer living longer
// than a window is moved to an offset below the top, and windows around
// the buffers it lands on are re-packed around it. The heuristic search
// before it places buffers one at a time and cannot undo a fragmented
// stretch of a long graph; a window packed exactly can.
//
// Each op keeps the walk the plan gave it (its pairs allow only that
// side), so the result is a valid plan whenever the input is; it is never
// larger.
//
// Cost: per window O(n * w) to collect it (n buffers, w times it spans),
// plus the packing's nodes, each about O(m * k) for its m buffers to pack
// and the k in and around the window (node_budget * 32 / k nodes at most,
// k at most max_around), until the nodes searched, each counted k times,
// reach work_budget.
#pragma once

#include <cstdint>

#include "dmo/plan/memory_problem.h"
#include "dmo/plan/plan.h"

namespace dmo {

struct PeakRepairOptions {
  int64_t alignment = 16;     // for buffers that name no alignment of their own
  int64_t end_rounding = 16;  // sizes rounded up to this where the arena is measured
  int32_t max_buffers = 16;   // moved per window
  // Per window of up to 32 buffers in and around it; fewer nodes for more.
  int64_t node_budget = 4000;
  // A window with more buffers in and around it is not packed.
  int32_t max_around = 512;
  // Per plan: nodes searched times the buffers in and around their window
  // (about 2^26 is a tenth of a second).
  int64_t work_budget = int64_t{1} << 26;
  // Offsets tried for a buffer whose own window does not pack (one living
  // longer than a window): the buffers it lands on are then re-packed.
  int32_t spots_tried = 8;
};

Plan repair_peak(const MemoryProblem& problem, Plan plan, int64_t floor, const PeakRepairOptions& options = {});

}  // namespace dmo

// dmo's planner: reverse-order heap allocation with overlaps (the output of
// an op placed before its inputs, so a dying input can be put over the
// output's end by up to its safe overlap), then a search over placement
// orders that keeps any order giving a smaller arena and stops at the lower
// bound. Honours the problem's fixed offsets, aliases and per-buffer
// alignments (see overlap_placement.h). The arena is measured with sizes
// rounded up to `end_rounding`, as TFLM measures it.
//
// Cost, for n buffers and c pairs of buffers live together (c grows with n
// times the buffers live at one op, not with n^2): a placement is
// O(n log n + c); the search is at most `search_budget` moves, each
// O(n) plus a placement of only the buffers the moved one can displace
// (those live with it, then those live with any of them that land
// elsewhere: OverlapPlacer::follow copies the rest from its best order's
// placement after every prefix, kept in O(n) by OverlapPlacer::Track),
// and it stops as soon as a plan reaches the lower bound, or once its
// placements have walked `work_budget` conflicts (where many buffers live
// together c approaches n^2, and each add sorts its conflicts). The peak
// repair and the rolling packing after it cost what peak_repair.h and
// rolling_packing.h say.
#pragma once

#include <cstdint>

#include "dmo/plan/memory_problem.h"
#include "dmo/plan/plan.h"

namespace dmo {

struct DmoPlannerOptions {
  bool use_overlaps = true;
  int64_t alignment = 16;  // for buffers that name no alignment of their own
  // The arena is measured with every size rounded up to this: TFLM's 16
  // bytes, as TFLM's planner lays out every buffer, offline ones included.
  int64_t end_rounding = 16;
  // Placements tried by the refinement after the start orders.
  int32_t search_budget = 4000;
  // And the conflicts its placements may walk (OverlapPlacer::work): on a
  // problem where thousands of buffers live together, or a few live across
  // the whole graph, a placement walks millions. The shared and zoo models
  // get the plans they got with four times this; tflm_pr_dp_net's search,
  // which finds nothing there, spent all of that.
  int64_t work_budget = int64_t{1} << 25;
  // Then re-pack windows around the top exactly (peak_repair.h) while the
  // arena is above the bound. A search comparing many candidate problems
  // leaves it to the plan it keeps.
  bool repair_peak = true;
  // And, still above it, pack the graph again stretch by stretch at the
  // bound (rolling_packing.h); like the repair, left to the plan kept.
  bool pack_rolling = true;
};

Plan plan_dmo(const MemoryProblem& problem, const DmoPlannerOptions& options = {});

}  // namespace dmo

// dmo's planner: reverse-order heap allocation with overlaps (the output of
// an op placed before its inputs, so a dying input can be put over the
// output's end by up to its safe overlap), then a search over placement
// orders that keeps any order giving a smaller arena and stops at the lower
// bound. Honours the problem's fixed offsets, aliases and per-buffer
// alignments (see overlap_placement.h).
#pragma once

#include <cstdint>

#include "dmo/plan/memory_problem.h"
#include "dmo/plan/plan.h"

namespace dmo {

struct DmoPlannerOptions {
  bool use_overlaps = true;
  int64_t alignment = 16;  // for buffers that name no alignment of their own
  // Placements tried by the refinement after the start orders.
  int32_t search_budget = 4000;
};

Plan plan_dmo(const MemoryProblem& problem, const DmoPlannerOptions& options = {});

}  // namespace dmo

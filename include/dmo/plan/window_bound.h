// A lower bound from exact packings of a few buffers: the smallest arena
// of any SUBSET of a problem's buffers (their sizes, lifetimes and the
// overlap pairs among them) is at most the whole problem's, since dropping
// buffers from a plan leaves a plan of the subset. The subsets are windows
// of time around the ops where the most bytes are live, where the peak
// bound misses the bytes lost to fragmentation; each is packed exactly by
// branch and bound, within a node budget (out of budget: no figure).
// The packing is exact_packing.h's.
#pragma once

#include <cstdint>

#include "dmo/plan/exact_packing.h"
#include "dmo/plan/memory_problem.h"

namespace dmo {

struct WindowBoundOptions {
  ExactPackingOptions packing;
  int32_t max_buffers = 16;  // per window
  int32_t max_windows = 8;   // ops tried as centres, the most live bytes first
};

// The largest exact packing of the windows around the ops with the most
// live bytes (each window grown from its op while it holds at most
// max_buffers eligible buffers), 0 when none was packed within budget.
// Stops early once a window reaches options.packing.ceiling.
int64_t peak_window_lower_bound_bytes(const MemoryProblem& problem, const WindowBoundOptions& options);

}  // namespace dmo

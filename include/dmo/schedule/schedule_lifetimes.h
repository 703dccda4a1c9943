// Tensor lifetimes of subgraph 0 under a schedule, with TFLM's conventions
// (model/lifetime.h) and time = step index: an op's inputs and outputs are
// live from its first step to its last, graph inputs and outputs from
// before the first step, graph outputs to the last. A tensor stored in a
// view lives as long as its base does and the base as long as any of its
// views, since they share bytes. For the default schedule this is
// compute_lifetimes(graph.main()) exactly. A split stage's band-buffered
// intermediate lives over its first tile only, from the step writing it to
// the step reading it: every tile writes it afresh and reads it before the
// next tile, so a plan safe for the first tile is safe for every tile
// (the stage's output, which later tiles write while their bands are in
// use, lives from the stage's first step for that).
#pragma once

#include <vector>

#include "dmo/model/lifetime.h"
#include "dmo/schedule/schedule.h"

namespace dmo {

std::vector<Lifetime> schedule_lifetimes(const Graph& graph, const Schedule& schedule);

}  // namespace dmo

// Tensor lifetimes of subgraph 0 under a schedule, with TFLM's conventions
// (model/lifetime.h) and time = step index: an op's inputs and outputs are
// live from its first step to its last, graph inputs and outputs from
// before the first step, graph outputs to the last. A tensor stored in a
// view lives as long as its base does and the base as long as any of its
// views, since they share bytes. For the default schedule this is
// compute_lifetimes(graph.main()) exactly.
#pragma once

#include <vector>

#include "dmo/model/lifetime.h"
#include "dmo/schedule/schedule.h"

namespace dmo {

std::vector<Lifetime> schedule_lifetimes(const Graph& graph, const Schedule& schedule);

}  // namespace dmo

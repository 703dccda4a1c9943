// The memory problem of subgraph 0 under an execution schedule: lifetimes
// with time = step (schedule_lifetimes), and each tensor view as an alias of
// its base (the view's buffer at the base's offset plus the view's first
// byte), so producers writing into a concatenation share its bytes.
#pragma once

#include "dmo/model/graph.h"
#include "dmo/plan/memory_problem.h"
#include "dmo/schedule/schedule.h"

namespace dmo {

MemoryProblem build_scheduled_problem(const Graph& graph, const Schedule& schedule);

}  // namespace dmo

// In-place concatenation: the producers of a CONCATENATION's (or PACK's)
// inputs write straight into their slice of its output through views
// (schedule/schedule.h), so the op copies nothing and does not run, and its
// inputs take no bytes of their own. The output then lives from its first
// producer on, which can cost more than the copy saves: the planner keeps
// only the ops that do not raise the arena (pipeline/plan_pipeline.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dmo/model/graph.h"
#include "dmo/schedule/schedule.h"

namespace dmo {

// One CONCATENATION or PACK of subgraph 0: whether every producer of its
// inputs can write in place, and if not, why (the first input that cannot).
struct ConcatInPlace {
  int32_t op = 0;
  bool possible = false;
  std::string reason;  // empty when possible
};

// Every CONCATENATION and PACK of subgraph 0, in op order.
std::vector<ConcatInPlace> concat_in_place_candidates(const Graph& graph);

// The views of `ops`' inputs into their outputs; a view into a tensor that
// is itself written in place (a concatenation of a concatenation) goes
// straight into the outermost output. Throws dmo::Error naming the op when
// one is not a CONCATENATION or PACK or cannot go in place.
std::vector<TensorView> concat_in_place_views(const Graph& graph, const std::vector<int32_t>& ops);

// `schedule` without the steps of `ops`, their inputs written in place.
Schedule with_concat_in_place(const Graph& graph, Schedule schedule, const std::vector<int32_t>& ops);

// Whether a schedule's step runs `op`.
bool schedule_runs_op(const Schedule& schedule, int32_t op);

}  // namespace dmo

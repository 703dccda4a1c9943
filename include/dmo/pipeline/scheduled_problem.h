// The memory problem under an execution schedule: lifetimes with time =
// step (schedule_lifetimes), and each tensor view as an alias of its base
// (the view's buffer at the base's offset plus the view's first byte), so
// producers writing into a concatenation share its bytes; a split stage's
// band-buffered intermediate sized as its band (schedule.h).
//
// A model of several subgraphs is planned whole, as TFLM allocates it
// (model/model_timeline.h): buffers for every subgraph's tensors (flat
// tensor indices, subgraph 0 first), and time the model timeline's, in
// which subgraph 0's steps (one whole step per op, in order) take their
// ops' times.
#pragma once

#include <vector>

#include "dmo/model/graph.h"
#include "dmo/overlap/safe_overlaps.h"
#include "dmo/plan/memory_problem.h"
#include "dmo/schedule/schedule.h"

namespace dmo {

MemoryProblem build_scheduled_problem(const Graph& graph, const Schedule& schedule);
// The same from scheduled_problem_lifetimes(graph, schedule), when the
// caller has them already.
MemoryProblem build_scheduled_problem(const Graph& graph, const Schedule& schedule,
                                      const std::vector<Lifetime>& lifetimes);

// `problem` (built for `schedule`) with each split stage's band buffers
// live over all of the stage's steps instead of its first tile's: more
// conflicts, so its plans are valid for `problem` too.
MemoryProblem with_bands_over_whole_stages(const Graph& graph, const MemoryProblem& problem,
                                          const Schedule& schedule);

// Whether the problem covers every subgraph (the model has several).
bool plans_whole_model(const Graph& graph);

// The problem's time of each step of `schedule`: its index, or on a whole
// model its op's time in the model timeline.
std::vector<int32_t> scheduled_step_times(const Graph& graph, const Schedule& schedule);

// The problem's lifetime of each tensor: per tensor of subgraph 0, or on a
// whole model per flat tensor.
std::vector<Lifetime> scheduled_problem_lifetimes(const Graph& graph, const Schedule& schedule);

// add_overlap_pairs, with each pair's op (a step of `schedule`, or past
// them a called subgraph's op by flat index) at its time.
void add_scheduled_overlap_pairs(const Graph& graph, const Schedule& schedule, MemoryProblem& problem,
                                 const std::vector<OpOverlap>& overlaps);

}  // namespace dmo

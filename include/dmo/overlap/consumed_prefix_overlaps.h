// Overlaps with a tensor that slices consume from the top. When every
// remaining reader of a tensor X is a slice (STRIDED_SLICE or SLICE with
// positive strides), each reads only elements at or after its begin corner,
// so the bytes of X below the least begin of the slices still to run are
// dead though X lives on. A buffer created then may end inside that prefix:
// e.g. split stages exported as tiles (transform/tiled_stages.h) write each
// tile's output over the input rows the earlier tiles' slices copied out.
// Any kernel order is safe: the bytes are never read again.
#pragma once

#include <cstdint>

#include "dmo/model/graph.h"
#include "dmo/plan/memory_problem.h"
#include "dmo/schedule/schedule.h"

namespace dmo {

// Adds, for each tensor X of subgraph 0 consumed by slices (not a graph
// output, nor a graph input when `preserve_graph_inputs`) and each buffer
// created at a step while X lives, an ascending pair letting the buffer's
// end reach `dead prefix` bytes into X (floored to `alignment`), keyed to
// X's first slice (a copy, which never walks descending). A view's base
// gets the pair its views allow together. Whole-op schedules only: split
// stages leave the problem unchanged.
void add_consumed_prefix_pairs(const Graph& graph, const Schedule& schedule, MemoryProblem& problem,
                               bool preserve_graph_inputs, int64_t alignment);

}  // namespace dmo

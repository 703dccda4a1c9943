// Control flow between subgraphs: which subgraphs an op calls (WHILE, IF,
// CALL_ONCE), and the checks TFLM's Prepare makes of such an op before any
// subgraph runs, plus one TFLM leaves to chance: no subgraph may call
// itself, directly or through others (TFLM would recurse without end).
#pragma once

#include <cstdint>
#include <vector>

#include "dmo/model/graph.h"

namespace dmo {

// The subgraphs `op` calls, in the order TFLM visits them when it marks
// lifetimes (micro_allocation_info.cc, MarkSubgraphLifetimesIfNecessary):
// WHILE cond then body, IF then then else, CALL_ONCE init; empty otherwise.
std::vector<int32_t> called_subgraphs(const Op& op);

// Whether some op of some subgraph calls a subgraph.
bool has_subgraph_calls(const Graph& graph);

// Throws dmo::Error naming the subgraph, op and kind unless every op that
// calls subgraphs names existing ones, has the operand counts TFLM's
// while.cc, if.cc and call_once.cc require of it and its subgraphs, copies
// only between tensors of the same type and size, and no call chain comes
// back to a subgraph it started from.
void check_subgraph_calls(const Graph& graph);

}  // namespace dmo

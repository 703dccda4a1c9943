// Execution orders of subgraph 0's ops other than file order. An order is
// valid when it is a topological order of the ops' dependencies: an op runs
// after the ops that write what it reads, and ops with effects beyond their
// tensors (resource variables, called subgraphs, variable tensors, tensors
// written twice) keep their file order among themselves.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dmo/model/graph.h"

namespace dmo {

// Per op of subgraph 0, the ops that must run before it (direct ones only,
// each listed once, ascending).
std::vector<std::vector<int32_t>> op_predecessors(const Graph& graph);

// 0, 1, ..., n - 1 for subgraph 0's n ops.
std::vector<int32_t> file_order(const Graph& graph);

// Why `order` is not a valid execution order of subgraph 0 ("op 7 is
// repeated", "op 3 runs before op 2, which writes its input tensor 5"), or ""
// when it is: every op exactly once, in range, a topological order.
std::string op_order_problem(const Graph& graph, const std::vector<int32_t>& order);

// The graph with subgraph 0's ops in `order` (order[i] = the original index
// of the op at position i); tensors, other subgraphs and metadata unchanged.
// Throws dmo::Error naming the problem when `order` is not valid.
Graph reordered_graph(const Graph& graph, const std::vector<int32_t>& order);

// The op indices of the reordered graph given as original indices.
std::vector<int32_t> original_op_indices(const std::vector<int32_t>& order, const std::vector<int32_t>& ops);
// And back: original indices as indices of the reordered graph.
std::vector<int32_t> reordered_op_indices(const std::vector<int32_t>& order, const std::vector<int32_t>& ops);

}  // namespace dmo

// Lifetimes over every subgraph of a model, as TFLM's allocation info marks
// them (micro_allocation_info.cc, MarkAllocationLifetimes): one counter of
// allocation scopes runs through subgraph 0 in op order; each op opens a
// scope, and an op that calls subgraphs (model/subgraph_calls.h) visits
// them right there, in its call order, each visit opening a scope for the
// called subgraph's inputs and outputs and one per op inside it, nested
// calls likewise. The calling op's inputs and outputs are last used after
// its subgraphs, so they stay live through every called op. A subgraph
// visited twice keeps the lifetimes of its last visit (TFLM marks a
// creation by resetting both ends); a subgraph never visited keeps its
// tensors uninitialised, and TFLM still plans them.
//
// Time is scope - 1 as in model/lifetime.h, so for a model without calls
// this is compute_lifetimes(graph.main()) exactly. Tensors and ops of all
// subgraphs are numbered in one flat order, subgraph 0 first (the order of
// TFLM's allocation info and of the OfflineMemoryAllocation offsets), so a
// tensor or op of subgraph 0 keeps its own index.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dmo/model/graph.h"
#include "dmo/model/lifetime.h"

namespace dmo {

struct ModelTimeline {
  std::vector<int32_t> first_tensor;  // per subgraph: flat index of its tensor 0
  std::vector<int32_t> first_op;      // per subgraph: flat index of its op 0
  std::vector<Lifetime> lifetimes;    // per flat tensor
  std::vector<int32_t> op_time;       // per flat op: the time it runs at; -1 for an op never visited
  std::vector<int32_t> op_end_time;   // per flat op: the last time its called subgraphs reach (op_time without calls)
  std::vector<int32_t> entry_time;    // per subgraph: the time its inputs are created (-1 for subgraph 0)
  std::vector<int32_t> exit_time;     // per subgraph: the time its outputs are last used
  std::vector<char> visited;          // per subgraph
  int32_t time_count = 0;             // ops run at times 0 .. time_count - 1

  int32_t flat_tensor(int32_t subgraph, int32_t tensor) const {
    return first_tensor[static_cast<size_t>(subgraph)] + tensor;
  }
  int32_t flat_op(int32_t subgraph, int32_t op) const { return first_op[static_cast<size_t>(subgraph)] + op; }
  // The subgraph a flat tensor belongs to.
  int32_t subgraph_of_tensor(int32_t flat) const;
  int32_t subgraph_of_op(int32_t flat) const;
};

// Checks the model's calls (check_subgraph_calls) and marks the lifetimes.
ModelTimeline model_timeline(const Graph& graph);

// Where a flat tensor or op index points: its subgraph and its index there.
struct SubgraphIndex {
  int32_t subgraph = 0;
  int32_t index = 0;
};
SubgraphIndex locate_flat_tensor(const Graph& graph, int32_t flat);
SubgraphIndex locate_flat_op(const Graph& graph, int32_t flat);
const Tensor& flat_tensor(const Graph& graph, int32_t flat);
const Op& flat_op(const Graph& graph, int32_t flat);
// "op 3 (ADD)" for subgraph 0, "subgraph 2 op 1 (ADD)" for another.
std::string flat_op_label(const Graph& graph, int32_t flat);

}  // namespace dmo

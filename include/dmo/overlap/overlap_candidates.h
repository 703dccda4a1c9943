// Which (input, output) pairs of subgraph 0, or of a called subgraph, may overlap: an op's output may
// sit over the start of an input only when that input dies at the op (its
// last use), holds no constant data, is not a variable, and (optionally) is
// not a graph input the caller needs afterwards.
#pragma once

#include <cstdint>
#include <vector>

#include "dmo/model/graph.h"
#include "dmo/model/lifetime.h"
#include "dmo/schedule/schedule.h"

namespace dmo {

struct OverlapCandidate {
  int32_t op = 0;
  int32_t input = kNoTensor;  // tensor index; kNoTensor when the op has no activation input
  int32_t output = kNoTensor;
  int64_t input_bytes = 0;
  int64_t output_bytes = 0;
  bool input_dies = false;  // the pair may be overlapped
};

// One candidate per op of subgraph 0 (indexed by op): its first output and
// its largest activation input, preferring inputs that die there, i.e. whose
// lifetime under `schedule` ends at the op's last step. An op the schedule
// does not run gets a candidate without input.
std::vector<OverlapCandidate> overlap_candidates(const Graph& graph, const Schedule& schedule,
                                                 bool preserve_graph_inputs);
// The same from schedule_lifetimes(graph, schedule), when the caller has them.
std::vector<OverlapCandidate> overlap_candidates(const Graph& graph, const Schedule& schedule,
                                                 const std::vector<Lifetime>& lifetimes, bool preserve_graph_inputs);

// For a model of several subgraphs, planned whole (model/model_timeline.h):
// one candidate per op of subgraphs 1.. in flat op order, with flat op and
// tensor indices; its input dies where its lifetime in the model timeline
// ends at the op's time (never visited: no input). Empty for one subgraph.
std::vector<OverlapCandidate> called_subgraph_candidates(const Graph& graph);

// The same for the ops of `subgraph` in file order (the default schedule).
std::vector<OverlapCandidate> overlap_candidates(const Subgraph& subgraph, bool preserve_graph_inputs);

}  // namespace dmo

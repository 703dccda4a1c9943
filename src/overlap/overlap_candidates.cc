#include "dmo/overlap/overlap_candidates.h"

#include <algorithm>
#include <cstddef>

#include "dmo/model/lifetime.h"
#include "dmo/model/model_timeline.h"
#include "dmo/schedule/schedule_lifetimes.h"

namespace dmo {
namespace {

// `last_time[op]`: when the op last runs (-1: never), in the time of `lifetimes`.
std::vector<OverlapCandidate> candidates(const Subgraph& subgraph, const std::vector<Lifetime>& lifetimes,
                                         const std::vector<int32_t>& last_time, bool preserve_graph_inputs) {
  std::vector<OverlapCandidate> result;
  for (int32_t i = 0; i < static_cast<int32_t>(subgraph.ops.size()); ++i) {
    const Op& op = subgraph.ops[static_cast<size_t>(i)];
    OverlapCandidate c;
    c.op = i;
    const int32_t time = last_time[static_cast<size_t>(i)];
    if (!op.outputs.empty() && time >= 0) {
      c.output = op.outputs[0];
      c.output_bytes = subgraph.tensors[static_cast<size_t>(c.output)].byte_size;
    }
    for (int32_t t : op.inputs) {
      if (t == kNoTensor || t == c.output || time < 0) continue;
      const Tensor& tensor = subgraph.tensors[static_cast<size_t>(t)];
      if (!tflm_plans_tensor(tensor)) continue;
      bool is_graph_input = std::find(subgraph.inputs.begin(), subgraph.inputs.end(), t) != subgraph.inputs.end();
      bool is_graph_output = std::find(subgraph.outputs.begin(), subgraph.outputs.end(), t) != subgraph.outputs.end();
      bool dies = lifetimes[static_cast<size_t>(t)].last == time && !is_graph_output &&
                  !(preserve_graph_inputs && is_graph_input);
      bool better = c.input == kNoTensor || (dies && !c.input_dies) ||
                    (dies == c.input_dies && tensor.byte_size > c.input_bytes);
      if (better) {
        c.input = t;
        c.input_bytes = tensor.byte_size;
        c.input_dies = dies;
      }
    }
    if (c.output == kNoTensor) c.input_dies = false;
    result.push_back(c);
  }
  return result;
}

}  // namespace

std::vector<OverlapCandidate> overlap_candidates(const Graph& graph, const Schedule& schedule,
                                                 bool preserve_graph_inputs) {
  return overlap_candidates(graph, schedule, schedule_lifetimes(graph, schedule), preserve_graph_inputs);
}

std::vector<OverlapCandidate> overlap_candidates(const Graph& graph, const Schedule& schedule,
                                                 const std::vector<Lifetime>& lifetimes, bool preserve_graph_inputs) {
  return candidates(graph.main(), lifetimes, last_step_of_ops(schedule, graph.main().ops.size()),
                    preserve_graph_inputs);
}

std::vector<OverlapCandidate> called_subgraph_candidates(const Graph& graph) {
  std::vector<OverlapCandidate> result;
  if (graph.subgraphs.size() < 2) return result;
  const ModelTimeline timeline = model_timeline(graph);
  for (size_t s = 1; s < graph.subgraphs.size(); ++s) {
    const Subgraph& sg = graph.subgraphs[s];
    const auto subgraph = static_cast<int32_t>(s);
    const auto first_tensor = static_cast<size_t>(timeline.flat_tensor(subgraph, 0));
    const std::vector<Lifetime> lifetimes(timeline.lifetimes.begin() + static_cast<std::ptrdiff_t>(first_tensor),
                                          timeline.lifetimes.begin() +
                                              static_cast<std::ptrdiff_t>(first_tensor + sg.tensors.size()));
    // An op that calls subgraphs keeps its operands live to its last called
    // op, so they die there, not at its own time.
    std::vector<int32_t> op_time(sg.ops.size());
    for (size_t i = 0; i < sg.ops.size(); ++i) {
      op_time[i] = timeline.op_end_time[static_cast<size_t>(timeline.flat_op(subgraph, static_cast<int32_t>(i)))];
    }
    // A called subgraph's inputs are copied in afresh by each call, so it
    // may overwrite them; its outputs are copied out after its last op.
    for (OverlapCandidate c : candidates(sg, lifetimes, op_time, /*preserve_graph_inputs=*/false)) {
      c.op = timeline.flat_op(subgraph, c.op);
      if (c.input != kNoTensor) c.input = timeline.flat_tensor(subgraph, c.input);
      if (c.output != kNoTensor) c.output = timeline.flat_tensor(subgraph, c.output);
      result.push_back(c);
    }
  }
  return result;
}

std::vector<OverlapCandidate> overlap_candidates(const Subgraph& subgraph, bool preserve_graph_inputs) {
  std::vector<int32_t> op_time(subgraph.ops.size());
  for (size_t i = 0; i < op_time.size(); ++i) op_time[i] = static_cast<int32_t>(i);
  return candidates(subgraph, compute_lifetimes(subgraph), op_time, preserve_graph_inputs);
}

}  // namespace dmo

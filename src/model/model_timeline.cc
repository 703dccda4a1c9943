#include "dmo/model/model_timeline.h"

#include <fmt/format.h>

#include <algorithm>

#include "dmo/error.h"

#include "dmo/model/subgraph_calls.h"

namespace dmo {

namespace {

// Walks the subgraphs as MarkAllocationLifetimes does; `scope` is TFLM's
// allocation scope count, and time = scope - 1.
class LifetimeMarker {
 public:
  LifetimeMarker(const Graph& graph, ModelTimeline& timeline) : graph_(graph), timeline_(timeline) {}

  void mark(int32_t s) {
    const Subgraph& sg = graph_.subgraphs[static_cast<size_t>(s)];
    timeline_.visited[static_cast<size_t>(s)] = 1;
    timeline_.entry_time[static_cast<size_t>(s)] = time();
    for (int32_t t : sg.inputs) create(s, t);
    for (int32_t t : sg.outputs) create(s, t);
    for (size_t i = 0; i < sg.ops.size(); ++i) {
      const Op& op = sg.ops[i];
      ++scope_;
      timeline_.op_time[static_cast<size_t>(timeline_.flat_op(s, static_cast<int32_t>(i)))] = time();
      for (int32_t t : op.outputs) create(s, t);
      for (int32_t callee : called_subgraphs(op)) {
        ++scope_;  // each called subgraph opens a scope for its inputs and outputs
        mark(callee);
      }
      timeline_.op_end_time[static_cast<size_t>(timeline_.flat_op(s, static_cast<int32_t>(i)))] = time();
      for (int32_t t : op.inputs) {
        if (t != kNoTensor) use(s, t);
      }
      for (int32_t t : op.outputs) use(s, t);
    }
    timeline_.exit_time[static_cast<size_t>(s)] = time();
    for (int32_t t : sg.outputs) use(s, t);
  }

  int32_t time() const { return scope_ - 1; }

 private:
  Lifetime& life(int32_t s, int32_t t) { return timeline_.lifetimes[static_cast<size_t>(timeline_.flat_tensor(s, t))]; }
  void create(int32_t s, int32_t t) { life(s, t) = {time(), time()}; }
  void use(int32_t s, int32_t t) { life(s, t).last = time(); }

  const Graph& graph_;
  ModelTimeline& timeline_;
  int32_t scope_ = 0;
};

}  // namespace

int32_t ModelTimeline::subgraph_of_tensor(int32_t flat) const {
  const auto it = std::upper_bound(first_tensor.begin(), first_tensor.end(), flat);
  return static_cast<int32_t>(it - first_tensor.begin()) - 1;
}

int32_t ModelTimeline::subgraph_of_op(int32_t flat) const {
  const auto it = std::upper_bound(first_op.begin(), first_op.end(), flat);
  return static_cast<int32_t>(it - first_op.begin()) - 1;
}

namespace {

template <class CountOf>
SubgraphIndex locate(const Graph& graph, int32_t flat, const CountOf& count_of, const char* what) {
  int32_t first = 0;
  for (size_t s = 0; s < graph.subgraphs.size(); ++s) {
    const int32_t count = count_of(graph.subgraphs[s]);
    if (flat >= first && flat < first + count) return {static_cast<int32_t>(s), flat - first};
    first += count;
  }
  throw Error(fmt::format("{}: no {} {} in any subgraph", graph.source, what, flat));
}

}  // namespace

SubgraphIndex locate_flat_tensor(const Graph& graph, int32_t flat) {
  return locate(graph, flat, [](const Subgraph& sg) { return static_cast<int32_t>(sg.tensors.size()); }, "tensor");
}

SubgraphIndex locate_flat_op(const Graph& graph, int32_t flat) {
  return locate(graph, flat, [](const Subgraph& sg) { return static_cast<int32_t>(sg.ops.size()); }, "op");
}

const Tensor& flat_tensor(const Graph& graph, int32_t flat) {
  const SubgraphIndex at = locate_flat_tensor(graph, flat);
  return graph.subgraphs[static_cast<size_t>(at.subgraph)].tensors[static_cast<size_t>(at.index)];
}

const Op& flat_op(const Graph& graph, int32_t flat) {
  const SubgraphIndex at = locate_flat_op(graph, flat);
  return graph.subgraphs[static_cast<size_t>(at.subgraph)].ops[static_cast<size_t>(at.index)];
}

std::string flat_op_label(const Graph& graph, int32_t flat) {
  const SubgraphIndex at = locate_flat_op(graph, flat);
  const std::string kind = flat_op(graph, flat).name();
  if (at.subgraph == 0) return fmt::format("op {} ({})", at.index, kind);
  return fmt::format("subgraph {} op {} ({})", at.subgraph, at.index, kind);
}

ModelTimeline model_timeline(const Graph& graph) {
  check_subgraph_calls(graph);  // no recursion: the walk below ends
  ModelTimeline timeline;
  int32_t tensors = 0, ops = 0;
  for (const Subgraph& sg : graph.subgraphs) {
    timeline.first_tensor.push_back(tensors);
    timeline.first_op.push_back(ops);
    tensors += static_cast<int32_t>(sg.tensors.size());
    ops += static_cast<int32_t>(sg.ops.size());
  }
  timeline.lifetimes.assign(static_cast<size_t>(tensors), Lifetime{});
  timeline.op_time.assign(static_cast<size_t>(ops), -1);
  timeline.op_end_time.assign(static_cast<size_t>(ops), -1);
  timeline.entry_time.assign(graph.subgraphs.size(), -1);
  timeline.exit_time.assign(graph.subgraphs.size(), -1);
  timeline.visited.assign(graph.subgraphs.size(), 0);
  LifetimeMarker marker(graph, timeline);
  marker.mark(0);
  timeline.time_count = marker.time() + 1;
  return timeline;
}

}  // namespace dmo

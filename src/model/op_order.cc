#include "dmo/model/op_order.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "dmo/error.h"

namespace dmo {

namespace {

// Ops whose effect is not only their output tensors: they keep their file
// order among themselves (a read of a resource variable must see the
// assignment before it, a called subgraph may touch variables).
bool has_side_effects(const Subgraph& sg, const Op& op) {
  if (op.is(OpKind::kCallOnce) || op.is(OpKind::kWhile) || op.is(OpKind::kIf) || op.is(OpKind::kReadVariable) ||
      op.is(OpKind::kAssignVariable) || op.is(OpKind::kVarHandle)) {
    return true;
  }
  auto variable = [&](int32_t t) { return t != kNoTensor && sg.tensors[static_cast<size_t>(t)].is_variable; };
  return std::any_of(op.inputs.begin(), op.inputs.end(), variable) ||
         std::any_of(op.outputs.begin(), op.outputs.end(), variable);
}

}  // namespace

std::vector<std::vector<int32_t>> op_predecessors(const Graph& graph) {
  const Subgraph& sg = graph.main();
  const size_t n = sg.ops.size();
  std::vector<std::set<int32_t>> before(n);
  // Every op touching a tensor written by several ops (or a graph input
  // that an op overwrites) keeps its file order with the others touching it.
  std::vector<std::vector<int32_t>> writers(sg.tensors.size()), touching(sg.tensors.size());
  for (size_t i = 0; i < n; ++i) {
    const Op& op = sg.ops[i];
    for (int32_t t : op.outputs) {
      if (t != kNoTensor) writers[static_cast<size_t>(t)].push_back(static_cast<int32_t>(i));
    }
    for (const auto* list : {&op.inputs, &op.outputs}) {
      for (int32_t t : *list) {
        if (t == kNoTensor) continue;
        auto& ops = touching[static_cast<size_t>(t)];
        if (ops.empty() || ops.back() != static_cast<int32_t>(i)) ops.push_back(static_cast<int32_t>(i));
      }
    }
  }
  int32_t last_effect = -1;
  for (size_t i = 0; i < n; ++i) {
    const Op& op = sg.ops[i];
    // Read after write: the latest writer before this op in file order.
    for (int32_t t : op.inputs) {
      if (t == kNoTensor) continue;
      for (int32_t w : writers[static_cast<size_t>(t)]) {
        if (w < static_cast<int32_t>(i)) before[i].insert(w);
      }
    }
    if (has_side_effects(sg, op)) {
      if (last_effect >= 0) before[i].insert(last_effect);
      last_effect = static_cast<int32_t>(i);
    }
  }
  const auto is_graph_input = [&](size_t t) {
    return std::find(sg.inputs.begin(), sg.inputs.end(), static_cast<int32_t>(t)) != sg.inputs.end();
  };
  for (size_t t = 0; t < sg.tensors.size(); ++t) {
    if (writers[t].size() < 2 && !(writers[t].size() == 1 && is_graph_input(t))) continue;
    const auto& ops = touching[t];
    for (size_t k = 1; k < ops.size(); ++k) before[static_cast<size_t>(ops[k])].insert(ops[k - 1]);
  }
  std::vector<std::vector<int32_t>> result(n);
  for (size_t i = 0; i < n; ++i) {
    before[i].erase(static_cast<int32_t>(i));
    result[i].assign(before[i].begin(), before[i].end());
  }
  return result;
}

std::vector<int32_t> file_order(const Graph& graph) {
  std::vector<int32_t> order(graph.main().ops.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int32_t>(i);
  return order;
}

std::string op_order_problem(const Graph& graph, const std::vector<int32_t>& order) {
  const Subgraph& sg = graph.main();
  const auto n = static_cast<int64_t>(sg.ops.size());
  std::vector<int64_t> position(sg.ops.size(), -1);
  for (size_t i = 0; i < order.size(); ++i) {
    const int64_t op = order[i];
    if (op < 0 || op >= n) return fmt::format("op {} is outside 0..{}", op, n - 1);
    if (position[static_cast<size_t>(op)] >= 0) return fmt::format("op {} is repeated", op);
    position[static_cast<size_t>(op)] = static_cast<int64_t>(i);
  }
  for (int64_t op = 0; op < n; ++op) {
    if (position[static_cast<size_t>(op)] < 0) return fmt::format("op {} is missing ({} ops)", op, n);
  }
  const std::vector<std::vector<int32_t>> before = op_predecessors(graph);
  for (int32_t op : order) {
    for (int32_t p : before[static_cast<size_t>(op)]) {
      if (position[static_cast<size_t>(p)] > position[static_cast<size_t>(op)]) {
        return fmt::format("op {} ({}) runs before op {} ({}), which it depends on: not a topological order", op,
                           sg.ops[static_cast<size_t>(op)].name(), p, sg.ops[static_cast<size_t>(p)].name());
      }
    }
  }
  return "";
}

Graph reordered_graph(const Graph& graph, const std::vector<int32_t>& order) {
  const std::string problem = op_order_problem(graph, order);
  if (!problem.empty()) throw Error(fmt::format("{}: op order: {}", graph.source, problem));
  Graph reordered = graph;
  std::vector<Op>& ops = reordered.subgraphs.front().ops;
  for (size_t i = 0; i < order.size(); ++i) ops[i] = graph.main().ops[static_cast<size_t>(order[i])];
  return reordered;
}

std::vector<int32_t> original_op_indices(const std::vector<int32_t>& order, const std::vector<int32_t>& ops) {
  std::vector<int32_t> original;
  for (int32_t op : ops) original.push_back(op >= 0 && static_cast<size_t>(op) < order.size() ? order[static_cast<size_t>(op)] : op);
  return original;
}

std::vector<int32_t> reordered_op_indices(const std::vector<int32_t>& order, const std::vector<int32_t>& ops) {
  std::vector<int32_t> position(order.size(), -1);
  for (size_t i = 0; i < order.size(); ++i) position[static_cast<size_t>(order[i])] = static_cast<int32_t>(i);
  std::vector<int32_t> reordered;
  for (int32_t op : ops) reordered.push_back(op >= 0 && static_cast<size_t>(op) < order.size() ? position[static_cast<size_t>(op)] : op);
  return reordered;
}

}  // namespace dmo

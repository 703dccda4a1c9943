#include "dmo/transform/concat_in_place.h"

#include <fmt/format.h>

#include <algorithm>
#include <variant>

#include "dmo/error.h"
#include "dmo/model/subgraph_calls.h"
#include "dmo/ops/control_flow.h"

namespace dmo {

namespace {

bool concatenates(const Op& op) { return op.is(OpKind::kConcatenation) || op.is(OpKind::kPack); }

bool same_quantization(const Tensor& a, const Tensor& b) {
  return a.quantization.scale == b.quantization.scale && a.quantization.zero_point == b.quantization.zero_point;
}

bool contains(const std::vector<int32_t>& tensors, int32_t t) {
  return std::find(tensors.begin(), tensors.end(), t) != tensors.end();
}

// Why the producer of `op`'s input `i` cannot write into its slice of the
// output, or "" when it can. `owner` is the first concatenating op reading
// each tensor: a tensor has one place, so only that op may take it.
std::string refusal(const Subgraph& sg, int32_t op_index, size_t i, const std::vector<int32_t>& writer,
                    const std::vector<int32_t>& owner) {
  const Op& op = sg.ops[static_cast<size_t>(op_index)];
  const int32_t t = op.inputs[i];
  if (t == kNoTensor) return fmt::format("input {} is missing", i);
  const Tensor& input = sg.tensors[static_cast<size_t>(t)];
  const Tensor& output = sg.tensors[static_cast<size_t>(op.outputs[0])];
  if (input.is_constant) return fmt::format("input {} is a constant", i);
  if (input.is_variable) return fmt::format("input {} is a variable", i);
  if (contains(sg.inputs, t)) return fmt::format("input {} is a graph input (the caller writes it, whole)", i);
  if (contains(sg.outputs, t)) return fmt::format("input {} is a graph output (the caller reads it, whole)", i);
  if (std::count(op.inputs.begin(), op.inputs.end(), t) > 1) {
    return fmt::format("input {} is concatenated twice (one tensor, one place)", i);
  }
  if (owner[static_cast<size_t>(t)] != op_index) {
    return fmt::format("input {} is also concatenated by op {} (one tensor, one place)", i,
                       owner[static_cast<size_t>(t)]);
  }
  if (input.type != output.type) return fmt::format("input {} has another element type than the output", i);
  if (!same_quantization(input, output)) {
    return fmt::format("input {} is quantized differently from the output (a requantization, not a copy)", i);
  }
  const int32_t producer = writer[static_cast<size_t>(t)];
  if (producer < 0) return fmt::format("input {} is written by no op", i);
  if (producer > op_index) return fmt::format("input {} is written after the op", i);
  if (is_control_flow(static_cast<OpKind>(sg.ops[static_cast<size_t>(producer)].builtin_code))) {
    return fmt::format("input {} comes from op {} ({}), which copies it out of a called subgraph", i, producer,
                       sg.ops[static_cast<size_t>(producer)].name());
  }
  return "";
}

// Where element `i` of `base`'s dense order is stored under its own view.
int64_t stored_at(const Tensor& base, const TensorView& view, int64_t i) {
  int64_t at = view.offset;
  for (size_t d = base.shape.size(); d-- > 0;) {
    const int64_t extent = base.shape[d];
    at += (i % extent) * view.strides[d];
    i /= extent;
  }
  return at;
}

// `inner` (a view into `outer.tensor`) as a view straight into outer's
// base. Concatenation and pack views are boxes inside their base, so one
// step along each dimension maps to one fixed step in the outer base.
TensorView through(const Subgraph& sg, const TensorView& inner, const TensorView& outer) {
  const Tensor& middle = sg.tensors[static_cast<size_t>(outer.tensor)];
  const Tensor& tensor = sg.tensors[static_cast<size_t>(inner.tensor)];
  TensorView view{inner.tensor, outer.base, stored_at(middle, outer, inner.offset), {}};
  for (size_t d = 0; d < tensor.shape.size(); ++d) {
    view.strides.push_back(tensor.shape[d] > 1 ? stored_at(middle, outer, inner.offset + inner.strides[d]) - view.offset
                                               : 0);
  }
  return view;
}

}  // namespace

std::vector<ConcatInPlace> concat_in_place_candidates(const Graph& graph) {
  const Subgraph& sg = graph.main();
  std::vector<int32_t> writer(sg.tensors.size(), -1), owner(sg.tensors.size(), -1);
  for (size_t o = 0; o < sg.ops.size(); ++o) {
    for (int32_t t : sg.ops[o].outputs) {
      if (t != kNoTensor) writer[static_cast<size_t>(t)] = static_cast<int32_t>(o);
    }
    if (!concatenates(sg.ops[o])) continue;
    for (int32_t t : sg.ops[o].inputs) {
      if (t != kNoTensor && owner[static_cast<size_t>(t)] < 0) owner[static_cast<size_t>(t)] = static_cast<int32_t>(o);
    }
  }
  std::vector<ConcatInPlace> candidates;
  for (size_t o = 0; o < sg.ops.size(); ++o) {
    const Op& op = sg.ops[o];
    if (!concatenates(op)) continue;
    ConcatInPlace c{static_cast<int32_t>(o), false, ""};
    const auto* concat = std::get_if<ConcatenationParams>(&op.params);
    if (has_subgraph_calls(graph)) {
      c.reason = "the model calls subgraphs: its ops run whole, in file order";
    } else if (op.outputs.size() != 1 || op.outputs[0] == kNoTensor) {
      c.reason = "the op has no single output";
    } else if (concat && concat->activation != Activation::kNone) {
      c.reason = "a fused activation changes the values (not a copy)";
    } else if (contains(sg.inputs, op.outputs[0])) {
      c.reason = "its output is a graph input";
    } else {
      for (size_t i = 0; i < op.inputs.size() && c.reason.empty(); ++i) {
        c.reason = refusal(sg, static_cast<int32_t>(o), i, writer, owner);
      }
      c.possible = c.reason.empty();
    }
    candidates.push_back(std::move(c));
  }
  return candidates;
}

std::vector<TensorView> concat_in_place_views(const Graph& graph, const std::vector<int32_t>& ops) {
  const Subgraph& sg = graph.main();
  const std::vector<ConcatInPlace> candidates = concat_in_place_candidates(graph);
  std::vector<TensorView> views;
  for (int32_t op : ops) {
    auto found = std::find_if(candidates.begin(), candidates.end(), [&](const ConcatInPlace& c) { return c.op == op; });
    if (op < 0 || static_cast<size_t>(op) >= sg.ops.size() || found == candidates.end()) {
      throw Error(fmt::format("{}: op {} is not a CONCATENATION or PACK of subgraph 0", graph.source, op));
    }
    if (!found->possible) {
      throw Error(fmt::format("{}: op {} ({}) cannot concatenate in place: {}", graph.source, op,
                              sg.ops[static_cast<size_t>(op)].name(), found->reason));
    }
    const std::vector<TensorView> own = sg.ops[static_cast<size_t>(op)].is(OpKind::kPack) ? pack_views(sg, op)
                                                                                            : concatenation_views(sg, op);
    views.insert(views.end(), own.begin(), own.end());
  }
  // A concatenation of a concatenation: the inner inputs go straight into
  // the outer output (a view's base is never a view itself).
  for (bool changed = true; changed;) {
    changed = false;
    for (TensorView& inner : views) {
      auto outer = std::find_if(views.begin(), views.end(), [&](const TensorView& v) { return v.tensor == inner.base; });
      if (outer == views.end()) continue;
      inner = through(sg, inner, *outer);
      changed = true;
    }
  }
  return views;
}

Schedule with_concat_in_place(const Graph& graph, Schedule schedule, const std::vector<int32_t>& ops) {
  if (ops.empty()) return schedule;
  std::vector<TensorView> views = concat_in_place_views(graph, ops);
  std::erase_if(schedule.steps, [&](const ScheduleStep& step) { return contains(ops, step.op); });
  schedule.views.insert(schedule.views.end(), views.begin(), views.end());
  return schedule;
}

bool schedule_runs_op(const Schedule& schedule, int32_t op) {
  return std::any_of(schedule.steps.begin(), schedule.steps.end(), [&](const ScheduleStep& s) { return s.op == op; });
}

}  // namespace dmo

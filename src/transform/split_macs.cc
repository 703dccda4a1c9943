#include "dmo/transform/split_macs.h"

#include <variant>

namespace dmo {

int64_t macs_per_output_row(const Subgraph& sg, int32_t op_index) {
  const Op& op = sg.ops.at(static_cast<size_t>(op_index));
  if (op.inputs.empty() || op.outputs.empty() || op.inputs[0] == kNoTensor) return 0;
  const Shape& in = sg.tensors[static_cast<size_t>(op.inputs[0])].shape;
  const Shape& out = sg.tensors[static_cast<size_t>(op.outputs[0])].shape;
  if (in.size() != 4 || out.size() != 4) return 0;
  const int64_t row_outputs = int64_t{out[0]} * out[2] * out[3];
  auto filter_shape = [&]() -> const Shape* {
    if (op.inputs.size() < 2 || op.inputs[1] == kNoTensor) return nullptr;
    const Shape& f = sg.tensors[static_cast<size_t>(op.inputs[1])].shape;
    return f.size() == 4 ? &f : nullptr;
  };
  if (op.is(OpKind::kConv2D)) {
    const Shape* f = filter_shape();
    return f ? row_outputs * (*f)[1] * (*f)[2] * (*f)[3] : 0;
  }
  if (op.is(OpKind::kDepthwiseConv2D)) {
    const Shape* f = filter_shape();
    return f ? row_outputs * (*f)[1] * (*f)[2] : 0;
  }
  if (const auto* pool = std::get_if<Pool2DParams>(&op.params)) {
    return row_outputs * pool->filter_h * pool->filter_w;
  }
  return 0;
}

int64_t op_macs(const Subgraph& sg, int32_t op) {
  const Op& o = sg.ops.at(static_cast<size_t>(op));
  if (o.outputs.empty()) return 0;
  const Shape& out = sg.tensors[static_cast<size_t>(o.outputs[0])].shape;
  return out.size() == 4 ? macs_per_output_row(sg, op) * out[1] : 0;
}

int64_t model_macs(const Graph& graph) {
  int64_t total = 0;
  for (size_t op = 0; op < graph.main().ops.size(); ++op) total += op_macs(graph.main(), static_cast<int32_t>(op));
  return total;
}

int64_t StageMacs::unsplit() const {
  int64_t total = 0;
  for (const OpSplitMacs& op : ops) total += op.unsplit;
  return total;
}

int64_t StageMacs::split() const {
  int64_t total = 0;
  for (const OpSplitMacs& op : ops) total += op.split;
  return total;
}

StageMacs stage_macs(const Graph& graph, const StageTiling& tiling) {
  const Subgraph& sg = graph.main();
  StageMacs macs;
  macs.stage = tiling.stage;
  for (int32_t k = 0; k < tiling.op_count(); ++k) {
    const int32_t op = tiling.stage.first_op + k;
    OpSplitMacs m{op, op_macs(sg, op), 0};
    const int32_t width = sg.tensors[static_cast<size_t>(tiling.outputs[static_cast<size_t>(k)])].shape[2];
    // A row's MACs are the same for each of its columns.
    const int64_t per_column = width > 0 ? macs_per_output_row(sg, op) / width : 0;
    for (size_t tile = 0; tile < tiling.rows.size(); ++tile) {
      m.split += per_column * tiling.rows[tile][static_cast<size_t>(k)].size() * tiling.cols[tile][static_cast<size_t>(k)].size();
    }
    macs.ops.push_back(m);
  }
  return macs;
}

}  // namespace dmo

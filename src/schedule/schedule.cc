#include "dmo/schedule/schedule.h"

#include <fmt/format.h>

#include <algorithm>
#include <variant>

#include "dmo/error.h"

namespace dmo {

Schedule default_schedule(const Graph& graph) { return default_schedule(graph, {}); }

Schedule default_schedule(const Graph& graph, const std::vector<int32_t>& descending) {
  Schedule schedule;
  const auto ops = static_cast<int32_t>(graph.main().ops.size());
  schedule.steps.reserve(static_cast<size_t>(ops));
  for (int32_t op = 0; op < ops; ++op) {
    ScheduleStep step;
    step.op = op;
    step.descending = std::find(descending.begin(), descending.end(), op) != descending.end();
    schedule.steps.push_back(step);
  }
  return schedule;
}

const BandBuffer* band_buffer_of(const Schedule& schedule, int32_t tensor) {
  for (const BandBuffer& band : schedule.band_buffers) {
    if (band.tensor == tensor) return &band;
  }
  return nullptr;
}

int64_t band_bytes(const Tensor& tensor, int32_t rows, int32_t cols) {
  if (tensor.shape.size() != 4 || tensor.shape[1] == 0 || tensor.shape[2] == 0) return tensor.byte_size;
  return tensor.byte_size / tensor.shape[1] / tensor.shape[2] * rows * cols;
}

int64_t band_bytes(const Tensor& tensor, const BandBuffer& band) { return band_bytes(tensor, band.rows, band.cols); }

const SplitStage* split_stage_of(const Schedule& schedule, int32_t op) {
  for (const SplitStage& stage : schedule.stages) {
    if (op >= stage.first_op && op <= stage.last_op) return &stage;
  }
  return nullptr;
}

bool runs_in_split_stage(const Schedule& schedule, int32_t op) { return split_stage_of(schedule, op) != nullptr; }

StepRange stage_steps(const Schedule& schedule, const SplitStage& stage) {
  StepRange range;
  for (size_t i = 0; i < schedule.steps.size(); ++i) {
    const int32_t op = schedule.steps[i].op;
    if (op < stage.first_op || op > stage.last_op) continue;
    if (range.end == 0) range.first = i;
    range.end = i + 1;
  }
  return range;
}

std::vector<int32_t> descending_ops(const Schedule& schedule) {
  std::vector<int32_t> ops;
  for (const ScheduleStep& step : schedule.steps) {
    if (step.descending && step.subgraph == 0) ops.push_back(step.op);
  }
  std::sort(ops.begin(), ops.end());
  ops.erase(std::unique(ops.begin(), ops.end()), ops.end());
  return ops;
}

std::vector<int32_t> last_step_of_ops(const Schedule& schedule, size_t op_count) {
  std::vector<int32_t> last(op_count, -1);
  for (size_t i = 0; i < schedule.steps.size(); ++i) last[static_cast<size_t>(schedule.steps[i].op)] = static_cast<int32_t>(i);
  return last;
}

namespace {

// The lowest and highest base element a view touches.
std::pair<int64_t, int64_t> view_extent(const TensorView& view, const Tensor& tensor) {
  int64_t low = view.offset, high = view.offset;
  for (size_t d = 0; d < tensor.shape.size(); ++d) {
    const int64_t span = int64_t{tensor.shape[d] - 1} * view.strides[d];
    (span < 0 ? low : high) += span;
  }
  return {low, high};
}

// Band buffers hold rows of NHWC intermediates, and every step touching
// one says where its band starts, with the rows it writes inside the band.
void check_band_buffers(const Graph& graph, const Schedule& schedule) {
  const Subgraph& sg = graph.main();
  auto is_graph_boundary = [&](int32_t t) {
    return std::find(sg.inputs.begin(), sg.inputs.end(), t) != sg.inputs.end() ||
           std::find(sg.outputs.begin(), sg.outputs.end(), t) != sg.outputs.end();
  };
  // Per tensor its band buffer (split schedules have thousands of steps).
  std::vector<const BandBuffer*> band_of(sg.tensors.size(), nullptr);
  for (const BandBuffer& band : schedule.band_buffers) {
    auto fail = [&](const std::string& what) {
      throw Error(fmt::format("{}: band buffer of tensor {}: {}", graph.source, band.tensor, what));
    };
    if (band.tensor < 0 || static_cast<size_t>(band.tensor) >= sg.tensors.size()) {
      fail(fmt::format("subgraph 0 has {} tensors", sg.tensors.size()));
    }
    const Tensor& t = sg.tensors[static_cast<size_t>(band.tensor)];
    if (band_of[static_cast<size_t>(band.tensor)]) fail("the tensor already has a band buffer");
    band_of[static_cast<size_t>(band.tensor)] = &band;
    if (t.shape.size() != 4) fail(fmt::format("a {}-D tensor; bands are rows of NHWC", t.shape.size()));
    if (t.is_constant || t.is_variable || is_graph_boundary(band.tensor)) fail("bands are for intermediate tensors only");
    if (band.rows < 1 || band.rows > t.shape[1]) fail(fmt::format("{} rows of a tensor of {}", band.rows, t.shape[1]));
    if (band.cols < 1 || band.cols > t.shape[2]) fail(fmt::format("{} columns of a tensor of {}", band.cols, t.shape[2]));
    for (const TensorView& v : schedule.views) {
      if (v.tensor == band.tensor || v.base == band.tensor) fail("a band-buffered tensor cannot take part in a view");
    }
  }
  for (size_t i = 0; i < schedule.steps.size(); ++i) {
    const ScheduleStep& step = schedule.steps[i];
    auto fail = [&](const std::string& what) {
      throw Error(fmt::format("{}: schedule step {} (op {}): {}", graph.source, i, step.op, what));
    };
    const Op& op = sg.ops[static_cast<size_t>(step.op)];
    auto position = [&](int32_t t) -> const BandPosition* {
      for (const BandPosition& p : step.bands) {
        if (p.tensor == t) return &p;
      }
      return nullptr;
    };
    for (const BandPosition& p : step.bands) {
      const bool in_range = p.tensor >= 0 && static_cast<size_t>(p.tensor) < sg.tensors.size();
      if (!in_range || band_of[static_cast<size_t>(p.tensor)] == nullptr) fail(fmt::format("a band position for tensor {}, which has no band buffer", p.tensor));
      const bool touched = std::find(op.inputs.begin(), op.inputs.end(), p.tensor) != op.inputs.end() ||
                           std::find(op.outputs.begin(), op.outputs.end(), p.tensor) != op.outputs.end();
      if (!touched) fail(fmt::format("a band position for tensor {}, which the op does not touch", p.tensor));
      const Shape& shape = sg.tensors[static_cast<size_t>(p.tensor)].shape;
      if (p.first_row < 0 || p.first_row >= shape[1]) {
        fail(fmt::format("the band of tensor {} starts at row {} of {}", p.tensor, p.first_row, shape[1]));
      }
      if (p.first_col < 0 || p.first_col >= shape[2]) {
        fail(fmt::format("the band of tensor {} starts at column {} of {}", p.tensor, p.first_col, shape[2]));
      }
    }
    auto require_position = [&](int32_t t) {
      if (t != kNoTensor && band_of[static_cast<size_t>(t)] && !position(t)) {
        fail(fmt::format("tensor {} is band-buffered but the step does not say where its band starts", t));
      }
    };
    for (int32_t t : op.inputs) require_position(t);
    for (int32_t t : op.outputs) require_position(t);
    if (op.outputs.empty()) continue;
    const BandBuffer* out_band = op.outputs[0] == kNoTensor ? nullptr : band_of[static_cast<size_t>(op.outputs[0])];
    if (out_band == nullptr) continue;
    const Shape& out_shape = sg.tensors[static_cast<size_t>(op.outputs[0])].shape;
    const IndexRange rows = step.region.rows(out_shape[1]), cols = step.region.cols(out_shape[2]);
    const BandPosition& at = *position(op.outputs[0]);
    if (rows.begin < at.first_row || rows.end > at.first_row + out_band->rows) {
      fail(fmt::format("it writes rows [{}, {}) of tensor {}, outside its band [{}, {})", rows.begin, rows.end,
                       op.outputs[0], at.first_row, at.first_row + out_band->rows));
    }
    if (cols.begin < at.first_col || cols.end > at.first_col + out_band->cols) {
      fail(fmt::format("it writes columns [{}, {}) of tensor {}, outside its band [{}, {})", cols.begin, cols.end,
                       op.outputs[0], at.first_col, at.first_col + out_band->cols));
    }
  }
}

}  // namespace

void check_schedule(const Graph& graph, const Schedule& schedule) {
  for (size_t i = 0; i < schedule.steps.size(); ++i) {
    const ScheduleStep& step = schedule.steps[i];
    auto fail = [&](const std::string& what) {
      throw Error(fmt::format("{}: schedule step {} (op {}): {}", graph.source, i, step.op, what));
    };
    if (step.subgraph != 0) fail(fmt::format("subgraph {}: only subgraph 0 runs", step.subgraph));
    const Subgraph& sg = graph.main();
    if (step.op < 0 || static_cast<size_t>(step.op) >= sg.ops.size()) {
      fail(fmt::format("subgraph 0 has {} ops", sg.ops.size()));
    }
    if (step.region.is_whole()) continue;
    const Op& op = sg.ops[static_cast<size_t>(step.op)];
    if (op.outputs.empty() || op.outputs[0] == kNoTensor) fail("a region of an op without output");
    const Tensor& out = sg.tensors[static_cast<size_t>(op.outputs[0])];
    if (out.shape.size() != 4) fail(fmt::format("a region of a {}-D output; regions are rows and columns of NHWC",
                                                out.shape.size()));
    const OutputRegion& r = step.region;
    if (r.row_begin < 0 || r.row_begin >= r.row_end || r.col_begin < 0 || r.col_begin >= r.col_end ||
        (r.row_end != OutputRegion::kToEnd && r.row_end > out.shape[1]) ||
        (r.col_end != OutputRegion::kToEnd && r.col_end > out.shape[2])) {
      fail(fmt::format("region rows [{}, {}) columns [{}, {}) is empty or outside the {} output", r.row_begin,
                       r.row_end, r.col_begin, r.col_end, shape_to_string(out.shape)));
    }
  }
  check_band_buffers(graph, schedule);
  const Subgraph& sg = graph.main();
  std::vector<char> viewed(sg.tensors.size(), 0);
  for (size_t i = 0; i < schedule.views.size(); ++i) {
    const TensorView& v = schedule.views[i];
    auto fail = [&](const std::string& what) {
      throw Error(fmt::format("{}: schedule view {} (tensor {} in tensor {}): {}", graph.source, i, v.tensor, v.base,
                              what));
    };
    auto in_range = [&](int32_t t) { return t >= 0 && static_cast<size_t>(t) < sg.tensors.size(); };
    if (!in_range(v.tensor) || !in_range(v.base)) fail(fmt::format("subgraph 0 has {} tensors", sg.tensors.size()));
    if (v.tensor == v.base) fail("a tensor cannot be a view into itself");
    if (viewed[static_cast<size_t>(v.tensor)]++) fail("the tensor already has a view");
    const Tensor& t = sg.tensors[static_cast<size_t>(v.tensor)];
    const Tensor& base = sg.tensors[static_cast<size_t>(v.base)];
    if (t.type != base.type) fail("the tensor and its base have different element types");
    if (t.is_constant || base.is_constant || t.is_variable || base.is_variable) {
      fail("views are for activation tensors only");
    }
    if (v.strides.size() != t.shape.size()) {
      fail(fmt::format("{} strides for a {}-D tensor", v.strides.size(), t.shape.size()));
    }
    if (t.element_count == 0) continue;
    auto [low, high] = view_extent(v, t);
    if (low < 0 || high >= base.element_count) {
      fail(fmt::format("its elements span [{}, {}] of a base of {} elements", low, high, base.element_count));
    }
  }
  for (const TensorView& v : schedule.views) {
    if (viewed[static_cast<size_t>(v.base)]) {
      throw Error(fmt::format("{}: tensor {} is a view into tensor {}, which is itself a view", graph.source, v.tensor,
                              v.base));
    }
  }
}

std::vector<TensorView> concatenation_views(const Subgraph& subgraph, int32_t concat_op) {
  const Op& op = subgraph.ops.at(static_cast<size_t>(concat_op));
  const auto* params = std::get_if<ConcatenationParams>(&op.params);
  if (!op.is(OpKind::kConcatenation) || params == nullptr || op.outputs.size() != 1) {
    throw Error(fmt::format("op {} ({}) is not a CONCATENATION", concat_op, op.name()));
  }
  const int32_t output = op.outputs[0];
  const Shape& shape = subgraph.tensors[static_cast<size_t>(output)].shape;
  const auto rank = static_cast<int32_t>(shape.size());
  const int32_t axis = params->axis < 0 ? params->axis + rank : params->axis;
  if (axis < 0 || axis >= rank) throw Error(fmt::format("op {} (CONCATENATION): axis {} of a {}-D output", concat_op,
                                                        params->axis, rank));
  // Row-major strides of the output; each input keeps them and starts at
  // its position along the axis.
  std::vector<int64_t> strides(shape.size(), 1);
  for (int32_t d = rank - 1; d > 0; --d) strides[static_cast<size_t>(d - 1)] = strides[static_cast<size_t>(d)] * shape[static_cast<size_t>(d)];
  std::vector<TensorView> views;
  int64_t position = 0;
  for (int32_t input : op.inputs) {
    views.push_back({input, output, position * strides[static_cast<size_t>(axis)], strides});
    position += subgraph.tensors[static_cast<size_t>(input)].shape.at(static_cast<size_t>(axis));
  }
  return views;
}

std::vector<TensorView> pack_views(const Subgraph& subgraph, int32_t pack_op) {
  const Op& op = subgraph.ops.at(static_cast<size_t>(pack_op));
  const auto* params = std::get_if<PackParams>(&op.params);
  if (!op.is(OpKind::kPack) || params == nullptr || op.outputs.size() != 1) {
    throw Error(fmt::format("op {} ({}) is not a PACK", pack_op, op.name()));
  }
  const Shape& shape = subgraph.tensors[static_cast<size_t>(op.outputs[0])].shape;
  const auto rank = static_cast<int32_t>(shape.size());
  const int32_t axis = params->axis < 0 ? params->axis + rank : params->axis;
  if (axis < 0 || axis >= rank) throw Error(fmt::format("op {} (PACK): axis {} of a {}-D output", pack_op, params->axis, rank));
  std::vector<int64_t> out_strides(shape.size(), 1);
  for (int32_t d = rank - 1; d > 0; --d) out_strides[static_cast<size_t>(d - 1)] = out_strides[static_cast<size_t>(d)] * shape[static_cast<size_t>(d)];
  // Each input has the output's dimensions but the packed one.
  std::vector<int64_t> strides = out_strides;
  strides.erase(strides.begin() + axis);
  std::vector<TensorView> views;
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    views.push_back({op.inputs[i], op.outputs[0], static_cast<int64_t>(i) * out_strides[static_cast<size_t>(axis)], strides});
  }
  return views;
}

}  // namespace dmo

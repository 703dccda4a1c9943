#include "dmo/transform/receptive_field.h"

#include <fmt/format.h>

#include <algorithm>
#include <variant>

#include "dmo/ops/padding.h"

namespace dmo {

namespace {

// Element-wise and activation ops of one input: output row y is computed
// from input row y alone.
bool is_row_preserving(OpKind kind) {
  switch (kind) {
    case OpKind::kRelu:
    case OpKind::kRelu6:
    case OpKind::kReluN1To1:
    case OpKind::kLeakyRelu:
    case OpKind::kLogistic:
    case OpKind::kTanh:
    case OpKind::kHardSwish:
    case OpKind::kQuantize:
    case OpKind::kDequantize:
      return true;
    default:
      return false;
  }
}

struct WindowParams {
  int32_t filter_size = 1, stride = 1, dilation = 1;
};

}  // namespace

bool splits_along_height(OpKind kind) {
  return kind == OpKind::kConv2D || kind == OpKind::kDepthwiseConv2D || kind == OpKind::kAveragePool2D ||
         kind == OpKind::kMaxPool2D;
}

AxisWindow element_wise_window(int32_t extent) { return AxisWindow{extent, extent, 1, 1, 1, 0}; }

namespace {

// The window along NHWC dimension `dim` (1: height, 2: width).
std::optional<AxisWindow> axis_window(const Subgraph& subgraph, int32_t op_index, int dim, std::string* why) {
  auto refuse = [&](const std::string& what) -> std::optional<AxisWindow> {
    if (why) *why = what;
    return std::nullopt;
  };
  const bool rows = dim == 1;
  const Op& op = subgraph.ops.at(static_cast<size_t>(op_index));
  const auto kind = static_cast<OpKind>(op.builtin_code);
  if (!splits_along_height(kind) && !is_row_preserving(kind)) return refuse("its rows do not follow a window");
  if (op.inputs.empty() || op.inputs[0] == kNoTensor || op.outputs.empty()) return refuse("it has no input or output");
  const Shape& in = subgraph.tensors[static_cast<size_t>(op.inputs[0])].shape;
  const Shape& out = subgraph.tensors[static_cast<size_t>(op.outputs[0])].shape;
  if (in.size() != 4 || out.size() != 4) return refuse("its input and output are not NHWC");
  if (in[0] != out[0]) return refuse("its input and output batches differ");
  if (is_row_preserving(kind)) {
    if (in != out) return refuse("its input and output shapes differ");
    return element_wise_window(out[static_cast<size_t>(dim)]);
  }
  auto filter_extent = [&]() -> std::optional<int32_t> {
    if (op.inputs.size() < 2 || op.inputs[1] == kNoTensor) return std::nullopt;
    const Shape& filter = subgraph.tensors[static_cast<size_t>(op.inputs[1])].shape;
    if (filter.size() != 4) return std::nullopt;
    return filter[static_cast<size_t>(dim)];
  };
  WindowParams p;
  if (const auto* conv = std::get_if<Conv2DParams>(&op.params)) {
    const std::optional<int32_t> filter = filter_extent();
    if (!filter) return refuse("it has no 4-D filter");
    p = {*filter, rows ? conv->stride_h : conv->stride_w, rows ? conv->dilation_h : conv->dilation_w};
  } else if (const auto* dw = std::get_if<DepthwiseConv2DParams>(&op.params)) {
    const std::optional<int32_t> filter = filter_extent();
    if (!filter) return refuse("it has no 4-D filter");
    p = {*filter, rows ? dw->stride_h : dw->stride_w, rows ? dw->dilation_h : dw->dilation_w};
  } else if (const auto* pool = std::get_if<Pool2DParams>(&op.params)) {
    p = {rows ? pool->filter_h : pool->filter_w, rows ? pool->stride_h : pool->stride_w, 1};
  } else {
    return refuse("it carries no window parameters");
  }
  if (p.filter_size < 1 || p.stride < 1 || p.dilation < 1) {
    return refuse(fmt::format("filter {} {}, stride {}, dilation {}", rows ? "height" : "width", p.filter_size,
                              p.stride, p.dilation));
  }
  AxisWindow w{in[static_cast<size_t>(dim)], out[static_cast<size_t>(dim)], p.filter_size, p.stride, p.dilation, 0};
  // The model's output size fixes the padding, as in TFLite Micro.
  w.pad_before = window_padding_before(w.input_extent, w.filter_size, w.stride, w.dilation, w.output_extent);
  return w;
}

}  // namespace

std::optional<AxisWindow> row_window(const Subgraph& subgraph, int32_t op, std::string* why) {
  return axis_window(subgraph, op, 1, why);
}

std::optional<AxisWindow> column_window(const Subgraph& subgraph, int32_t op, std::string* why) {
  return axis_window(subgraph, op, 2, why);
}

IndexRange input_range(const AxisWindow& w, IndexRange outputs) {
  // Tap k of output row y reads row y * stride + k * dilation - pad_before,
  // rising with y: per tap, the lowest row inside the input is at the
  // first band row reaching row 0, the highest at the last one below the
  // extent. With dilation a tap may skip the input's first or last rows,
  // so every tap is looked at; a band of many rows costs no more.
  // (Windows have strides of at least 1: row_window refuses others.)
  if (outputs.end <= outputs.begin || w.stride <= 0) return {0, 0};
  auto floor_div = [](int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); };
  const int64_t first = outputs.begin, last = int64_t{outputs.end} - 1;
  int64_t lowest = w.input_extent, highest = -1;
  for (int32_t k = 0; k < w.filter_size; ++k) {
    const int64_t offset = int64_t{k} * w.dilation - w.pad_before;
    // The first band row whose tap reaches row 0, and the last whose tap
    // is still inside the input.
    const int64_t y_low = std::max(first, -floor_div(offset, w.stride));
    if (y_low <= last) {
      const int64_t row = y_low * w.stride + offset;
      if (row < w.input_extent) lowest = std::min(lowest, row);
    }
    const int64_t y_high = std::min(last, floor_div(int64_t{w.input_extent} - 1 - offset, w.stride));
    if (y_high >= first) {
      const int64_t row = y_high * w.stride + offset;
      if (row >= 0) highest = std::max(highest, row);
    }
  }
  if (highest < lowest) return {0, 0};
  return {static_cast<int32_t>(lowest), static_cast<int32_t>(highest + 1)};
}

}  // namespace dmo

// Receptive fields along the height and width axes: which input rows (or
// columns) an op reads to compute a band of its output rows (or columns),
// as TFLite's kernels index them (stride, dilation, filter size and the
// before padding the model's output size fixes), clipped to the input.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "dmo/model/graph.h"
#include "dmo/ops/output_region.h"

namespace dmo {

// One op's index arithmetic along one axis: output row (or column) y reads
// input rows y * stride - pad_before + k * dilation for k in
// [0, filter_size). An element-wise op (activation, quantize) has filter,
// stride and dilation 1 and no padding: output row y reads input row y.
struct AxisWindow {
  int32_t input_extent = 0;
  int32_t output_extent = 0;
  int32_t filter_size = 1;
  int32_t stride = 1;
  int32_t dilation = 1;
  int32_t pad_before = 0;
};

// Whether dmo can split ops of this kind along the height axis: the
// windowed ops, whose kernels compute any band of their output rows exactly
// as a whole run does (ops/output_region.h).
bool splits_along_height(OpKind kind);

// The row window of op `op` of `subgraph` (input 0 -> output 0, both NHWC
// with the same batch), or nullopt with `why` set when the op cannot be
// split along the height axis.
std::optional<AxisWindow> row_window(const Subgraph& subgraph, int32_t op, std::string* why = nullptr);

// The same along the width: the window's extents and filter count columns.
// An op splits along the width whenever it splits along the height.
std::optional<AxisWindow> column_window(const Subgraph& subgraph, int32_t op, std::string* why = nullptr);

// The input rows (or columns) that output rows (or columns) `outputs`
// read: from the lowest a tap of theirs reads inside the input to the
// highest (padding taps read nothing); empty when they read only padding.
IndexRange input_range(const AxisWindow& window, IndexRange outputs);

// The window of an element-wise op along an axis `extent` long.
AxisWindow element_wise_window(int32_t extent);

}  // namespace dmo

// Receptive fields along the height axis: which input rows an op reads to
// compute a band of its output rows, as TFLite's kernels index them
// (stride, dilation, filter height and the before padding the model's
// output size fixes), clipped to the input.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "dmo/model/graph.h"
#include "dmo/ops/output_region.h"

namespace dmo {

// One op's row arithmetic: output row y reads input rows
// y * stride - pad_before + k * dilation for k in [0, filter_height).
// A row-preserving op (element-wise, activation) has filter, stride and
// dilation 1 and no padding: output row y reads input row y.
struct RowWindow {
  int32_t input_height = 0;
  int32_t output_height = 0;
  int32_t filter_height = 1;
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
std::optional<RowWindow> row_window(const Subgraph& subgraph, int32_t op, std::string* why = nullptr);

// The input rows that output rows `rows` read: from the lowest row a tap
// of theirs reads inside the input to the highest (padding taps read
// nothing); empty when they read only padding.
IndexRange input_rows(const RowWindow& window, IndexRange rows);

// The row window of a row-preserving op of `height` rows.
RowWindow row_preserving_window(int32_t height);

}  // namespace dmo

// Output sizes and "before" padding of windowed ops, as TFLite computes them:
// SAME gives ceil(in / stride) outputs, VALID (in - dilated filter) / stride + 1;
// the before padding is half the total, rounded down, never negative.
#pragma once

#include <cstdint>

#include "dmo/model/op_params.h"
#include "dmo/ops/eval/taps.h"

namespace dmo {

int32_t dilated_filter_size(int32_t filter, int32_t dilation);

int32_t window_output_size(Padding padding, int32_t in, int32_t filter, int32_t stride, int32_t dilation);

int32_t window_padding_before(int32_t in, int32_t filter, int32_t stride, int32_t dilation, int32_t out);


}  // namespace dmo

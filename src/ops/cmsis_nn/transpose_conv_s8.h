// What the two int8 TRANSPOSE_CONV kernels of the cmsis-nn families share:
// the layer's geometry as TFLM's cmsis_nn glue hands it to
// arm_transpose_conv_wrapper_s8, the requantization (the reference
// kernel's, so values are TFLM's), and one constructor per path.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "dmo/ops/eval/fixed_point_math.h"
#include "dmo/ops/fixed_point.h"
#include "dmo/ops/prepared_kernel.h"

namespace dmo {

// Operand positions of TRANSPOSE_CONV: (output_shape, filter, input, bias).
constexpr size_t kTransposeConvFilter = 1, kTransposeConvInput = 2, kTransposeConvBias = 3;

struct TransposeConvS8Layer {
  int64_t batches = 0, input_height = 0, input_width = 0, input_depth = 0;
  int64_t filter_height = 0, filter_width = 0;
  int64_t output_height = 0, output_width = 0, output_depth = 0;
  int64_t stride_height = 1, stride_width = 1;
  int64_t pad_height = 0, pad_width = 0;  // before the first output row/column
  bool has_bias = false;
  int32_t input_offset = 0;                      // -(input zero point)
  int32_t output_offset = 0;                     // output zero point
  std::vector<QuantizedMultiplier> multipliers;  // per output channel

  int64_t input_index(int64_t b, int64_t y, int64_t x, int64_t c) const {
    return ((b * input_height + y) * input_width + x) * input_depth + c;
  }
  int64_t filter_index(int64_t oc, int64_t y, int64_t x, int64_t ic) const {
    return ((oc * filter_height + y) * filter_width + x) * input_depth + ic;
  }
  int64_t output_index(int64_t b, int64_t y, int64_t x, int64_t c) const {
    return ((b * output_height + y) * output_width + x) * output_depth + c;
  }

  // The reference kernel's last step for one sum (bias included):
  // per-channel requantization, output zero point, clamp to int8 (TFLM
  // fuses no activation into quantized TRANSPOSE_CONV).
  int8_t requantize(int32_t sum, int64_t channel) const {
    const int32_t scaled =
        multiply_by_quantized_multiplier(sum, multipliers[static_cast<size_t>(channel)]) + output_offset;
    return static_cast<int8_t>(
        std::clamp(scaled, int32_t{std::numeric_limits<int8_t>::min()}, int32_t{std::numeric_limits<int8_t>::max()}));
  }
};

// One product added to an int32 sum, wrapping as CMSIS-NN's registers do,
// so any order of the products gives the reference's sum.
inline int32_t wrapping_mac(int32_t acc, int32_t input_with_offset, int32_t weight) {
  return fixed::wrapping_add(
      acc, static_cast<int32_t>(static_cast<uint32_t>(input_with_offset) * static_cast<uint32_t>(weight)));
}

// arm_transpose_conv_wrapper_s8's test: strides of at most 2 and more than
// REVERSE_TCOL_EFFICIENT_THRESHOLD (16) input channels take the reverse
// convolution (arm_convolve_s8 over the stride-upscaled input).
constexpr int64_t kReverseConvDepthThreshold = 16;
inline bool takes_reverse_conv(const TransposeConvS8Layer& l) {
  return l.stride_height <= 2 && l.stride_width <= 2 && l.input_depth > kReverseConvDepthThreshold;
}

// arm_transpose_conv_s8's rolling row buffer: its width in output pixels
// and its height in rows.
inline int64_t rolling_buffer_columns(const TransposeConvS8Layer& l) {
  return (l.input_width - 1) * l.stride_width + std::max(l.filter_width, l.stride_width);
}
inline int64_t rolling_buffer_rows(const TransposeConvS8Layer& l) { return std::max(l.filter_height, l.stride_height); }

// arm_transpose_conv_s8 (rolling int32 row buffer; `dsp` picks the
// ARM_MATH_DSP reads) and arm_convolve_s8 with upscale (reverse
// convolution, the same reads of the input on both families).
PreparedKernel transpose_conv_rows_s8_kernel(const TransposeConvS8Layer& layer, bool dsp);
PreparedKernel transpose_conv_reverse_s8_kernel(const TransposeConvS8Layer& layer);

}  // namespace dmo

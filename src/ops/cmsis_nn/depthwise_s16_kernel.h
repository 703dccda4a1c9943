// The int16 DEPTHWISE_CONV_2D of CMSIS-NN: arm_depthwise_conv_s16
// (ARM-software/CMSIS-NN arm_depthwise_conv_s16.c at file commit
// d933672e7ca97eec70ef43230baee7b20c2a28ae, V.2.0.2), which TFLM's glue
// calls directly for int16 activations with int8 filters and int64 biases.
// It always runs depthwise_conv_s16_generic_s16, with or without
// ARM_MATH_DSP (its multiplier-4 variant is compiled but never called): per
// output element, channel-major, the window's taps inside the input, then
// the store.
// Values: a 64-bit sum of input * filter (no offsets: int16 zero points are
// 0), plus the bias, then arm_nn_requantize_s64 with the multiplier reduced
// to 16 bits, which rounds as TFLM's 64-bit MultiplyByQuantizedMultiplier
// (multiply_by_quantized_multiplier_wide), then the activation clamp.
#pragma once

#include <algorithm>
#include <cstdint>

#include "../conv2d/conv_quantization.h"
#include "depthwise_s8_kernels.h"
#include "dmo/ops/fixed_point.h"
#include "dmo/ops/kernel_io.h"

namespace dmo::cmsis_nn {

struct DepthwiseConvS16 {
  DepthwiseShape s;
  ConvRequantization requantization;  // offsets 0; one multiplier per output channel

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const TensorRef& input = io.input(0);
    const TensorRef& filter = io.input(1);
    const bool has_bias = io.has_input(2);
    int64_t output_index = 0;
    for (int32_t batch = 0; batch < s.batches; ++batch) {
      for (int32_t out_y = 0; out_y < s.output_height; ++out_y) {
        const int32_t base_y = out_y * s.stride_height - s.pad_height;
        const int32_t row_begin = DepthwiseConvS8Generic::first_tap_inside(base_y, s.dilation_height);
        const int32_t row_end =
            DepthwiseConvS8Generic::end_of_taps_inside(base_y, s.dilation_height, s.input_height, s.filter_height);
        for (int32_t out_x = 0; out_x < s.output_width; ++out_x) {
          const int32_t base_x = out_x * s.stride_width - s.pad_width;
          const int32_t col_begin = DepthwiseConvS8Generic::first_tap_inside(base_x, s.dilation_width);
          const int32_t col_end =
              DepthwiseConvS8Generic::end_of_taps_inside(base_x, s.dilation_width, s.input_width, s.filter_width);
          for (int32_t in_channel = 0; in_channel < s.input_channels; ++in_channel) {
            for (int32_t m = 0; m < s.channel_multiplier; ++m) {
              const int32_t out_channel = in_channel * s.channel_multiplier + m;
              int64_t acc = has_bias ? mem.template load<int64_t>(io.input(2), out_channel) : 0;
              for (int32_t ky = row_begin; ky < row_end; ++ky) {
                const int32_t y = base_y + s.dilation_height * ky;
                for (int32_t kx = col_begin; kx < col_end; ++kx) {
                  const int32_t x = base_x + s.dilation_width * kx;
                  const int16_t value = mem.template load<int16_t>(input, s.input_index(batch, y, x, in_channel));
                  const int8_t weight = mem.template load<int8_t>(filter, s.filter_index(ky, kx, out_channel));
                  acc += int64_t{value} * int64_t{weight};
                }
              }
              int32_t result = multiply_by_quantized_multiplier_wide(
                  acc, requantization.multipliers[static_cast<size_t>(out_channel)]);
              result = std::min(std::max(result, requantization.range.min), requantization.range.max);
              mem.template store<int16_t>(io.output(0), output_index++, static_cast<int16_t>(result));
            }
          }
        }
      }
    }
  }
};

}  // namespace dmo::cmsis_nn

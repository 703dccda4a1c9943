// The int8 DEPTHWISE_CONV_2D loop nests of CMSIS-NN, one per function and
// path arm_depthwise_conv_wrapper_s8 can reach, each loading the activation
// input and storing the output in that function's order. Values are TFLM's:
// the sums are the reference kernel's products taken in another order
// (equal in wrapping 32-bit arithmetic), requantized by
// QuantizedConvArithmetic, which matches arm_nn_requantize (both round half
// away from zero twice; CMSIS-NN's missing saturation only matters for a
// multiplier of INT32_MIN, which a quantized scale never is).
//
// Read in ARM-software/CMSIS-NN at these file commits:
//  - arm_depthwise_conv_3x3_s8.c            512ffcbdc0ae625b0c844af91ac960023dda0eb9 (V.3.1.2)
//  - arm_depthwise_conv_s8_opt.c            f6a8918551075f8479b65c9c125977ddd2f4e52f (V.3.3.0)
//  - arm_depthwise_conv_s8.c                4f6622a517bf54c7126cab8c0c6c37b7ab7e1720 (V.3.0.5)
// The scratch sizes and the selection are in depthwise_conv.cc.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "dmo/ops/eval/conv_arithmetic.h"
#include "../conv2d/conv_quantization.h"
#include "dmo/ops/kernel_io.h"

namespace dmo::cmsis_nn {

// The op's shape as the glue hands it to CMSIS-NN (cmsis_nn_dims and
// cmsis_nn_dw_conv_params), padding from the model's output size.
struct DepthwiseShape {
  int32_t batches = 0;
  int32_t input_height = 0, input_width = 0, input_channels = 0;
  int32_t filter_height = 0, filter_width = 0;
  int32_t output_height = 0, output_width = 0, output_channels = 0;
  int32_t channel_multiplier = 1;
  int32_t stride_height = 1, stride_width = 1;
  int32_t dilation_height = 1, dilation_width = 1;
  int32_t pad_height = 0, pad_width = 0;

  int64_t input_index(int64_t batch, int64_t y, int64_t x, int64_t channel) const {
    return ((batch * input_height + y) * input_width + x) * input_channels + channel;
  }
  // Filter [1, KH, KW, output channels].
  int64_t filter_index(int64_t y, int64_t x, int64_t out_channel) const {
    return (y * filter_width + x) * output_channels + out_channel;
  }
};

// What every int8 path shares: the shape, the requantization, and the step
// that finishes one output channel (bias, requantize, offset, clamp) and
// stores it.
struct DepthwiseS8Common {
  DepthwiseShape s;
  ConvRequantization requantization;

  template <class Memory>
  void store(const KernelIO& io, Memory& mem, const QuantizedConvArithmetic<int8_t>& arithmetic, int64_t output_index,
             int32_t acc, int32_t out_channel) const {
    const int32_t bias = io.has_input(2) ? mem.template load<int32_t>(io.input(2), out_channel) : 0;
    mem.template store<int8_t>(io.output(0), output_index, arithmetic.finish(acc, bias, out_channel));
  }

  // One product of the weight of (y, x, out_channel) with an input value.
  template <class Memory>
  int32_t multiply_add(const KernelIO& io, Memory& mem, const QuantizedConvArithmetic<int8_t>& arithmetic, int32_t acc,
                       int8_t input, int64_t y, int64_t x, int64_t out_channel) const {
    const int8_t weight = mem.template load<int8_t>(io.input(1), s.filter_index(y, x, out_channel));
    return arithmetic.multiply_add(acc, input, weight);
  }
};

// arm_depthwise_conv_3x3_s8 (portable and DSP alike; channel multiplier 1,
// one batch, padding at most 1): per output pixel, channels in groups of 4
// read as one 4-byte word per filter tap (rows of the window inside the
// input, the left column unless it is padding, the middle column always,
// the right column while inside), then the 4 outputs stored; leftover
// channels one at a time.
struct DepthwiseConv3x3S8 : DepthwiseS8Common {
  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const QuantizedConvArithmetic<int8_t> arithmetic(requantization);
    const TensorRef& input = io.input(0);
    const int32_t channels = s.input_channels;
    int64_t output_index = 0;
    for (int32_t out_y = 0; out_y < s.output_height; ++out_y) {
      const int32_t in_y = out_y * s.stride_height - s.pad_height;
      const int32_t row_begin = std::max(0, -in_y);
      const int32_t row_end = std::min(3, s.input_height - in_y);
      for (int32_t out_x = 0; out_x < s.output_width; ++out_x) {
        const int32_t in_x = out_x * s.stride_width - s.pad_width;
        const int32_t col_begin = in_x < 0 ? 1 : 0;
        const int32_t col_end = s.input_width - in_x >= 3 ? 3 : 2;
        auto channel_group = [&](int32_t first, int32_t lanes) {
          std::array<int32_t, 4> acc{};
          for (int32_t ky = row_begin; ky < row_end; ++ky) {
            for (int32_t kx = col_begin; kx < col_end; ++kx) {
              for (int32_t lane = 0; lane < lanes; ++lane) {
                const int8_t value =
                    mem.template load<int8_t>(input, s.input_index(0, in_y + ky, in_x + kx, first + lane));
                acc[static_cast<size_t>(lane)] =
                    multiply_add(io, mem, arithmetic, acc[static_cast<size_t>(lane)], value, ky, kx, first + lane);
              }
            }
          }
          for (int32_t lane = 0; lane < lanes; ++lane) {
            store(io, mem, arithmetic, output_index++, acc[static_cast<size_t>(lane)], first + lane);
          }
        };
        int32_t channel = 0;
        for (; channel + 4 <= channels; channel += 4) channel_group(channel, 4);
        for (; channel < channels; ++channel) channel_group(channel, 1);
      }
    }
  }
};

// arm_depthwise_conv_s8_opt with ARM_MATH_DSP (channel multiplier 1, one
// batch): per output pixel, first every input value of the window that lies
// inside the input, filter tap by tap, all channels of a tap in ascending
// order, widened with the input offset into the scratch buffer (taps in the
// padding are zeroed there); then all channels of the pixel from that
// buffer, stored in ascending order.
struct DepthwiseConvOptS8Dsp : DepthwiseS8Common {
  mutable std::vector<int32_t> columns;  // the kernel's int16 column buffer (input + offset), kept wide

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const QuantizedConvArithmetic<int8_t> arithmetic(requantization);
    const TensorRef& input = io.input(0);
    const int32_t channels = s.input_channels;
    const int32_t taps = s.filter_height * s.filter_width;
    columns.assign(static_cast<size_t>(taps) * static_cast<size_t>(channels), 0);
    int64_t output_index = 0;
    for (int32_t out_y = 0; out_y < s.output_height; ++out_y) {
      const int32_t base_y = out_y * s.stride_height - s.pad_height;
      for (int32_t out_x = 0; out_x < s.output_width; ++out_x) {
        const int32_t base_x = out_x * s.stride_width - s.pad_width;
        // The buffer's memsets touch only scratch; zeroing it all first
        // leaves the same columns as zeroing the padded rows and taps.
        std::fill(columns.begin(), columns.end(), 0);
        for (int32_t ky = std::max(0, -base_y); ky < std::min(s.filter_height, s.input_height - base_y); ++ky) {
          for (int32_t kx = 0; kx < s.filter_width; ++kx) {
            const int32_t x = base_x + kx;
            if (x < 0 || x >= s.input_width) continue;
            const size_t column = static_cast<size_t>(ky * s.filter_width + kx) * static_cast<size_t>(channels);
            for (int32_t c = 0; c < channels; ++c) {
              const int8_t value = mem.template load<int8_t>(input, s.input_index(0, base_y + ky, x, c));
              columns[column + static_cast<size_t>(c)] = int32_t{value} + requantization.input_offset;
            }
          }
        }
        for (int32_t c = 0; c < channels; ++c) {
          int32_t acc = 0;
          for (int32_t tap = 0; tap < taps; ++tap) {
            const int8_t weight = mem.template load<int8_t>(io.input(1), int64_t{tap} * channels + c);
            const int32_t product =
                int32_t{weight} *
                columns[static_cast<size_t>(tap) * static_cast<size_t>(channels) + static_cast<size_t>(c)];
            acc = QuantizedConvArithmetic<int8_t>::wrapping_add(acc, product);
          }
          store(io, mem, arithmetic, output_index++, acc, c);
        }
      }
    }
  }
};

// depthwise_conv_s8_mult_4 inside arm_depthwise_conv_s8 (channel multiplier
// a multiple of 4, one batch, no dilation): per output pixel and input
// channel, the multiplier's outputs in tiles of 4; each tile reads the
// window's input values of its channel once (taps inside the input, row by
// row) and then stores its 4 outputs.
struct DepthwiseConvS8Mult4 : DepthwiseS8Common {
  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const QuantizedConvArithmetic<int8_t> arithmetic(requantization);
    const TensorRef& input = io.input(0);
    const int32_t multiplier = s.channel_multiplier;
    int64_t output_index = 0;
    for (int32_t out_y = 0; out_y < s.output_height; ++out_y) {
      const int32_t in_y = out_y * s.stride_height - s.pad_height;
      const int32_t row_begin = std::max(0, -in_y);
      const int32_t row_end = std::min(s.filter_height, s.input_height - in_y);
      for (int32_t out_x = 0; out_x < s.output_width; ++out_x) {
        const int32_t in_x = out_x * s.stride_width - s.pad_width;
        const int32_t col_begin = std::max(0, -in_x);
        const int32_t col_end = std::min(s.filter_width, s.input_width - in_x);
        for (int32_t in_channel = 0; in_channel < s.input_channels; ++in_channel) {
          for (int32_t tile = 0; tile < multiplier; tile += 4) {
            const int32_t out_channel = in_channel * multiplier + tile;
            std::array<int32_t, 4> acc{};
            for (int32_t ky = row_begin; ky < row_end; ++ky) {
              for (int32_t kx = col_begin; kx < col_end; ++kx) {
                const int8_t value =
                    mem.template load<int8_t>(input, s.input_index(0, in_y + ky, in_x + kx, in_channel));
                for (int32_t lane = 0; lane < 4; ++lane) {
                  acc[static_cast<size_t>(lane)] = multiply_add(io, mem, arithmetic, acc[static_cast<size_t>(lane)],
                                                                value, ky, kx, out_channel + lane);
                }
              }
            }
            for (int32_t lane = 0; lane < 4; ++lane) {
              store(io, mem, arithmetic, output_index++, acc[static_cast<size_t>(lane)], out_channel + lane);
            }
          }
        }
      }
    }
  }
};

// depthwise_conv_s8_generic inside arm_depthwise_conv_s8 (any multiplier,
// batches and dilation): per output element, in channel-major order, the
// window's taps that fall inside the input, then the store; the reference
// kernel's order.
struct DepthwiseConvS8Generic : DepthwiseS8Common {
  // The first filter index k >= 0 with base + dilation * k >= 0, and the end
  // of those with base + dilation * k < size.
  static int32_t first_tap_inside(int32_t base, int32_t dilation) {
    return std::max(0, (-base + dilation - 1) / dilation);
  }
  static int32_t end_of_taps_inside(int32_t base, int32_t dilation, int32_t size, int32_t filter) {
    return std::min(filter, (size - base + dilation - 1) / dilation);
  }

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const QuantizedConvArithmetic<int8_t> arithmetic(requantization);
    const TensorRef& input = io.input(0);
    int64_t output_index = 0;
    for (int32_t batch = 0; batch < s.batches; ++batch) {
      for (int32_t out_y = 0; out_y < s.output_height; ++out_y) {
        const int32_t base_y = out_y * s.stride_height - s.pad_height;
        const int32_t row_begin = first_tap_inside(base_y, s.dilation_height);
        const int32_t row_end = end_of_taps_inside(base_y, s.dilation_height, s.input_height, s.filter_height);
        for (int32_t out_x = 0; out_x < s.output_width; ++out_x) {
          const int32_t base_x = out_x * s.stride_width - s.pad_width;
          const int32_t col_begin = first_tap_inside(base_x, s.dilation_width);
          const int32_t col_end = end_of_taps_inside(base_x, s.dilation_width, s.input_width, s.filter_width);
          for (int32_t in_channel = 0; in_channel < s.input_channels; ++in_channel) {
            for (int32_t m = 0; m < s.channel_multiplier; ++m) {
              const int32_t out_channel = in_channel * s.channel_multiplier + m;
              int32_t acc = 0;
              for (int32_t ky = row_begin; ky < row_end; ++ky) {
                const int32_t y = base_y + s.dilation_height * ky;
                for (int32_t kx = col_begin; kx < col_end; ++kx) {
                  const int32_t x = base_x + s.dilation_width * kx;
                  const int8_t value = mem.template load<int8_t>(input, s.input_index(batch, y, x, in_channel));
                  acc = multiply_add(io, mem, arithmetic, acc, value, ky, kx, out_channel);
                }
              }
              store(io, mem, arithmetic, output_index++, acc, out_channel);
            }
          }
        }
      }
    }
  }
};

}  // namespace dmo::cmsis_nn

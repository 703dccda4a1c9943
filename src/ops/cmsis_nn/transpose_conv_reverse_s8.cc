// The reverse convolution arm_transpose_conv_wrapper_s8 runs for int8
// TRANSPOSE_CONV with both strides at most 2 and more than 16 input
// channels (TFLM's kernels/cmsis_nn/transpose_conv.cc Eval ->
// EvalQuantizedPerChannel). Read in CMSIS-NN's
// arm_transpose_conv_wrapper_s8.c V.1.0.0 and arm_convolve_s8.c V.4.0.0
// as FabKlein/CMSIS-NN holds them at
// b8dbf389f91ce5b15c4042fc26c11a6ec763cbbd (a fork that carries
// Arm's releases of these files), and
// arm_nn_mat_mult_kernel_s8_s16.c at ARM-software/CMSIS-NN
// 7676d05afe20da3be2af4c45f40d64847e6315bd.
//
// The wrapper first copies the filter, flipped in height and width, into
// the second scratch buffer (reverse_conv_ctx), then calls arm_convolve_s8
// with stride 1, padding filter - 1 - padding and an upscale of the
// strides: the input is read as if stride - 1 zero rows and columns
// followed each input row and column. Per output pixel in order, the
// im2col column is set to the input zero point and each tap that falls on
// a real input pixel copies that pixel's channels in (the memcpy); every
// two pixels arm_nn_mat_mult_kernel_s8_s16 stores channel c of pixel 0 and
// of pixel 1, then channel c + 1 of both; an odd last pixel of a batch is
// stored channel by channel. The portable and DSP builds differ only in
// how the int16 copy of the column is read (scratch), so the input and
// output are accessed in the same order on both.
// Values: the conv of the upscaled input with the flipped filter sums the
// products the reference's scatter sums, in int32 wrapping arithmetic;
// the requantization is the reference kernel's.
#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "transpose_conv_s8.h"

namespace dmo {
namespace {

struct TransposeConvReverseS8Kernel {
  TransposeConvS8Layer l;
  // reverse_conv_ctx: the filter flipped in height and width.
  mutable std::vector<int8_t> flipped_filter;
  // ctx: two im2col columns (raw input bytes; taps off the input hold the
  // input zero point, which contributes nothing once offset).
  mutable std::array<std::vector<int8_t>, 2> columns;
  mutable std::vector<int32_t> bias;

  int64_t column_length() const { return l.filter_height * l.filter_width * l.input_depth; }

  template <class Memory>
  void flip_filter(const KernelIO& io, Memory& mem) const {
    const TensorRef& filter = io.input(kTransposeConvFilter);
    for (int64_t oc = 0; oc < l.output_depth; ++oc) {
      for (int64_t y = 0; y < l.filter_height; ++y) {
        for (int64_t x = 0; x < l.filter_width; ++x) {
          const int64_t to = l.filter_index(oc, l.filter_height - 1 - y, l.filter_width - 1 - x, 0);
          for (int64_t c = 0; c < l.input_depth; ++c) {
            flipped_filter[static_cast<size_t>(to + c)] =
                mem.template load<int8_t>(filter, l.filter_index(oc, y, x, c));
          }
        }
      }
    }
  }

  // arm_convolve_s8's im2col of output pixel (out_y, out_x) over the
  // upscaled input: position u of an upscaled axis holds input u / stride
  // when u is a multiple of the stride, zero otherwise.
  template <class Memory>
  void fill_column(const KernelIO& io, Memory& mem, std::vector<int8_t>& column, int64_t b, int64_t out_y,
                   int64_t out_x) const {
    const TensorRef& input = io.input(kTransposeConvInput);
    const auto zero_point = static_cast<int8_t>(-l.input_offset);
    std::fill(column.begin(), column.end(), zero_point);
    const int64_t upscaled_height = l.input_height * l.stride_height;
    const int64_t upscaled_width = l.input_width * l.stride_width;
    const int64_t first_y = out_y - (l.filter_height - 1 - l.pad_height);
    const int64_t first_x = out_x - (l.filter_width - 1 - l.pad_width);
    for (int64_t ky = 0; ky < l.filter_height; ++ky) {
      const int64_t u_y = first_y + ky;
      if (u_y < 0 || u_y >= upscaled_height || u_y % l.stride_height != 0) continue;
      for (int64_t kx = 0; kx < l.filter_width; ++kx) {
        const int64_t u_x = first_x + kx;
        if (u_x < 0 || u_x >= upscaled_width || u_x % l.stride_width != 0) continue;
        const int64_t from = l.input_index(b, u_y / l.stride_height, u_x / l.stride_width, 0);
        const int64_t to = (ky * l.filter_width + kx) * l.input_depth;
        for (int64_t c = 0; c < l.input_depth; ++c) {
          column[static_cast<size_t>(to + c)] = mem.template load<int8_t>(input, from + c);
        }
      }
    }
  }

  int8_t output_value(const std::vector<int8_t>& column, int64_t channel) const {
    int32_t sum = l.has_bias ? bias[static_cast<size_t>(channel)] : 0;
    const int64_t first = channel * column_length();
    for (int64_t k = 0; k < column_length(); ++k) {
      sum = wrapping_mac(sum, int32_t{column[static_cast<size_t>(k)]} + l.input_offset,
                         flipped_filter[static_cast<size_t>(first + k)]);
    }
    return l.requantize(sum, channel);
  }

  template <class Memory>
  void store(const KernelIO& io, Memory& mem, int64_t pixel_output, size_t column, int64_t channel) const {
    mem.template store<int8_t>(io.output(0), pixel_output + channel, output_value(columns[column], channel));
  }

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    flip_filter(io, mem);
    if (l.has_bias) {
      for (int64_t c = 0; c < l.output_depth; ++c) {
        bias[static_cast<size_t>(c)] = mem.template load<int32_t>(io.input(kTransposeConvBias), c);
      }
    }
    for (int64_t b = 0; b < l.batches; ++b) {
      std::array<int64_t, 2> pixel_output{};
      size_t pending = 0;
      for (int64_t out_y = 0; out_y < l.output_height; ++out_y) {
        for (int64_t out_x = 0; out_x < l.output_width; ++out_x) {
          fill_column(io, mem, columns[pending], b, out_y, out_x);
          pixel_output[pending] = l.output_index(b, out_y, out_x, 0);
          if (++pending < 2) continue;
          pending = 0;
          int64_t c = 0;
          for (; c + 2 <= l.output_depth; c += 2) {
            for (int64_t channel = c; channel < c + 2; ++channel) {
              store(io, mem, pixel_output[0], 0, channel);
              store(io, mem, pixel_output[1], 1, channel);
            }
          }
          if (c < l.output_depth) {
            store(io, mem, pixel_output[0], 0, c);
            store(io, mem, pixel_output[1], 1, c);
          }
        }
      }
      if (pending == 1) {
        for (int64_t c = 0; c < l.output_depth; ++c) store(io, mem, pixel_output[0], 0, c);
      }
    }
  }
};

}  // namespace

PreparedKernel transpose_conv_reverse_s8_kernel(const TransposeConvS8Layer& layer) {
  TransposeConvReverseS8Kernel kernel;
  kernel.l = layer;
  kernel.flipped_filter.assign(static_cast<size_t>(layer.output_depth * kernel.column_length()), 0);
  for (auto& column : kernel.columns) column.assign(static_cast<size_t>(kernel.column_length()), 0);
  kernel.bias.assign(static_cast<size_t>(layer.has_bias ? layer.output_depth : 0), 0);
  return PreparedKernel::of(std::move(kernel));
}

}  // namespace dmo

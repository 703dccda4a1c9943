// CONV_2D with int16 activations and int8 filters in the cmsis-nn families,
// mirroring TFLM's kernels/cmsis_nn/conv.cc (tensorflow/tflite-micro
// 19e0e51c835820f8ffb78b60238a6a58fe757cc8): Prepare's scratch request
// (arm_convolve_wrapper_s16_get_buffer_size), then Eval's int16 case ->
// EvalQuantizedPerChannel<int16_t, int32_t or int64_t> ->
// arm_convolve_wrapper_s16 -> arm_convolve_s16, as read in the CMSIS-NN
// copy under tensorflow/tflite-micro out/third_party/cmsis_nn at
// c801050fdb7b81750bdcd18a83ebff32932ea1dc (arm_convolve_wrapper_s16.c
// V.3.0.0, arm_convolve_s16.c V.4.0.0, arm_convolve_get_buffer_sizes_s16.c
// V.2.0.0) and arm_nn_mat_mult_kernel_s16.c V.3.0.1 of ARM-software/CMSIS-NN
// at 4519089b207e881cbc28f3f06f23acc06f02e4b5 (the first versions taking
// the cmsis_nn_bias_data the glue passes).
//
// The wrapper always runs arm_convolve_s16 (wrappers up to V.2.0.1 picked
// arm_convolve_fast_s16 with DSP for small undilated filters; this one has
// no such branch). Without MVE, per batch: each output pixel's window is
// copied into an int16 im2col column (memcpy of each in-bounds tap's
// channels, memset 0 for padding taps); every second pixel,
// arm_nn_mat_mult_kernel_s16 computes both columns against every channel
// pair, storing pixel 0 then pixel 1 of channel c, then of c + 1, an odd
// last channel last; an odd last pixel of the batch is finished channel
// by channel. Pixel pairs run across output rows. The DSP path differs only
// in reading the column and the filter (neither in the arena) two and four
// values at a time, so both families touch the input and output in the
// same order.
//
// Values: the glue passes an absent or int32 bias as int32 (then sums,
// bias and arm_nn_requantize stay in 32 bits: TFLM's reference values) and
// an int64 bias as int64: the pair kernel sums the first MAX_COL_COUNT
// (512) columns in 32 bits and the rest in 64, the odd pixel sums all in
// 32 bits, and arm_nn_requantize_s64 truncates to 32 bits before its last
// rounding shift. Those are CMSIS-NN's values, computed here; they equal the
// reference's unless a 32-bit partial sum or the shifted product overflows.
// Not mirrored: with DSP, an int64 bias, an odd channel count and more than
// 512 columns not a multiple of 4, the last channel reads past its filter
// row and the columns (memory beyond them decides the result); dmo computes
// the intended sum there.
// Refused where CMSIS-NN cannot compute the op: a grouped convolution
// (arm_convolve_s16 reads the filter with the input's depth) and non-zero
// zero points (the glue's Prepare requires 0).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "../conv2d/conv_quantization.h"
#include "cmsis_conv_shape.h"
#include "cmsis_nn_kernels.h"
#include "requantize_s64.h"
#include "dmo/ops/fixed_point.h"
#include "dmo/ops/kernels.h"

namespace dmo {
namespace {

// arm_convolve_s16_get_buffer_size without MVE, DSP or not: two int16
// columns.
int64_t scratch_bytes(const CmsisConvShape& s) {
  return 2 * int64_t{s.input_depth} * s.filter_width * s.filter_height * static_cast<int64_t>(sizeof(int16_t));
}

// The pair kernel's 32-bit stretch of an int64-bias sum.
constexpr int32_t kMaxColCount = 512;

using fixed::wrapping_add;

struct CmsisConvS16Kernel {
  CmsisConvShape s;
  bool int64_bias = false;  // else an int32 bias or none
  std::vector<QuantizedMultiplier> multipliers;
  QuantizedRange range{0, 0};
  // arm_convolve_s16's scratch: the im2col columns of two output pixels.
  mutable std::array<std::vector<int16_t>, 2> columns;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    for (auto& column : columns) column.assign(static_cast<size_t>(s.column_length()), 0);
    for (int32_t batch = 0; batch < s.batches; ++batch) {
      std::array<int64_t, 2> pixel_output{};
      size_t pending = 0;
      for (int32_t out_y = 0; out_y < s.output_height; ++out_y) {
        for (int32_t out_x = 0; out_x < s.output_width; ++out_x) {
          fill_column(io, mem, columns[pending], batch, out_y, out_x);
          pixel_output[pending] = ((int64_t{batch} * s.output_height + out_y) * s.output_width + out_x) * s.output_depth;
          if (++pending == 2) {
            two_pixels(io, mem, pixel_output);
            pending = 0;
          }
        }
      }
      if (pending == 1) {  // the odd last pixel, channel by channel
        for (int32_t c = 0; c < s.output_depth; ++c) {
          const int32_t sum = partial_sum(io, mem, columns[0], c, 0, s.column_length());
          store(io, mem, pixel_output[0] + c, requantize(io, mem, sum, 0, c));
        }
      }
    }
  }

  // One output pixel's window: each in-bounds tap's channels loaded in order
  // (the memcpy), padding taps zero (the memset).
  template <class Memory>
  void fill_column(const KernelIO& io, Memory& mem, std::vector<int16_t>& column, int32_t batch, int32_t out_y,
                   int32_t out_x) const {
    const TensorRef& input = io.input(0);
    const int64_t base_y = int64_t{out_y} * s.stride_height - s.pad_height;
    const int64_t base_x = int64_t{out_x} * s.stride_width - s.pad_width;
    size_t at = 0;
    for (int32_t ky = 0; ky < s.filter_height; ++ky) {
      const int64_t in_y = base_y + int64_t{s.dilation_height} * ky;
      for (int32_t kx = 0; kx < s.filter_width; ++kx) {
        const int64_t in_x = base_x + int64_t{s.dilation_width} * kx;
        if (in_y < 0 || in_y >= s.input_height || in_x < 0 || in_x >= s.input_width) {
          std::fill_n(column.begin() + static_cast<std::ptrdiff_t>(at), s.input_depth, int16_t{0});
          at += static_cast<size_t>(s.input_depth);
          continue;
        }
        const int64_t first = ((int64_t{batch} * s.input_height + in_y) * s.input_width + in_x) * s.input_depth;
        for (int32_t ch = 0; ch < s.input_depth; ++ch) column[at++] = mem.template load<int16_t>(input, first + ch);
      }
    }
  }

  // Column entries [first, first + count) times channel's filter row, summed
  // in 32 bits (wrapping, as the MACs and SMLAD do).
  template <class Memory>
  int32_t partial_sum(const KernelIO& io, Memory& mem, const std::vector<int16_t>& column, int32_t channel,
                      int32_t first, int32_t count) const {
    const int64_t row = int64_t{channel} * s.column_length();
    int32_t sum = 0;
    for (int32_t k = first; k < first + count; ++k) {
      const int8_t weight = mem.template load<int8_t>(io.input(1), row + k);
      sum = wrapping_add(sum, int32_t{weight} * int32_t{column[static_cast<size_t>(k)]});
    }
    return sum;
  }

  // The 32-bit sum `sum` of a channel's first columns plus `tail` (the rest,
  // summed in 64 bits), the bias and the requantization of the bias's type.
  template <class Memory>
  int32_t requantize(const KernelIO& io, Memory& mem, int32_t sum, int64_t tail, int32_t channel) const {
    const QuantizedMultiplier m = multipliers[static_cast<size_t>(channel)];
    if (!int64_bias) {
      const int32_t bias = io.has_input(2) ? mem.template load<int32_t>(io.input(2), channel) : 0;
      return multiply_by_quantized_multiplier(wrapping_add(sum, bias), m);
    }
    const int64_t bias = io.has_input(2) ? mem.template load<int64_t>(io.input(2), channel) : 0;
    return cmsis_requantize_s64(int64_t{sum} + tail + bias, m);
  }

  // What arm_nn_mat_mult_kernel_s16 computes for one channel and column.
  template <class Memory>
  int32_t pair_kernel_value(const KernelIO& io, Memory& mem, const std::vector<int16_t>& column, int32_t channel) const {
    const int32_t length = s.column_length();
    if (!int64_bias) return requantize(io, mem, partial_sum(io, mem, column, channel, 0, length), 0, channel);
    const int32_t fast = std::min(length, kMaxColCount);
    const int32_t sum = partial_sum(io, mem, column, channel, 0, fast);
    int64_t tail = 0;
    const int64_t row = int64_t{channel} * length;
    for (int32_t k = fast; k < length; ++k) {
      tail += int64_t{mem.template load<int8_t>(io.input(1), row + k)} * column[static_cast<size_t>(k)];
    }
    return requantize(io, mem, sum, tail, channel);
  }

  template <class Memory>
  void store(const KernelIO& io, Memory& mem, int64_t output_index, int32_t value) const {
    const int32_t clamped = std::min(std::max(value, range.min), range.max);
    mem.template store<int16_t>(io.output(0), output_index, static_cast<int16_t>(clamped));
  }

  // arm_nn_mat_mult_kernel_s16: per channel pair, pixel 0 then pixel 1 of
  // channel c, then of c + 1; an odd last channel for pixel 0 then pixel 1.
  template <class Memory>
  void two_pixels(const KernelIO& io, Memory& mem, const std::array<int64_t, 2>& pixel_output) const {
    int32_t c = 0;
    for (; c + 2 <= s.output_depth; c += 2) {
      for (int32_t ch = c; ch < c + 2; ++ch) {
        for (size_t p = 0; p < 2; ++p) store(io, mem, pixel_output[p] + ch, pair_kernel_value(io, mem, columns[p], ch));
      }
    }
    if (c < s.output_depth) {
      for (size_t p = 0; p < 2; ++p) store(io, mem, pixel_output[p] + c, pair_kernel_value(io, mem, columns[p], c));
    }
  }
};

}  // namespace

std::optional<PreparedKernel> prepare_cmsis_nn_conv2d_s16(const OpContext& ctx) {
  // prepare_cmsis_nn_conv2d has run the reference prepare's checks: int16
  // input and output, int8 filter, an int32 or int64 bias or none.
  const auto& params = std::get<Conv2DParams>(ctx.op->params);
  CmsisConvS16Kernel kernel;
  kernel.s = cmsis_conv_shape(ctx, params);
  ctx.require(kernel.s.filter_depth == kernel.s.input_depth,
              fmt::format("grouped convolution (filter depth {}, input depth {}) is not supported by "
                          "arm_convolve_s16, which reads the filter with the input's depth",
                          kernel.s.filter_depth, kernel.s.input_depth));
  ConvRequantization q =
      per_channel_requantization(ctx, params.activation, kernel.s.output_depth, /*quantized_dimension=*/0);
  ctx.require(q.input_offset == 0 && q.output_offset == 0, "int16 input and output must have zero point 0");
  kernel.int64_bias = ctx.has_input(2) && ctx.input(2).type() == DataType::kInt64;
  kernel.multipliers = std::move(q.multipliers);
  kernel.range = q.range;

  const int64_t bytes = scratch_bytes(kernel.s);
  PreparedKernel prepared = PreparedKernel::of(std::move(kernel));
  prepared.implementation =
      std::string("arm_convolve_s16") + (ctx.family == KernelFamily::kCmsisNnDsp ? " (DSP)" : " (portable)");
  // The glue looks the bias up among the outputs, never finds it, and so
  // requests the buffer whatever the bias type.
  if (bytes > 0) prepared.scratch.push_back(KernelScratch{bytes, "im2col columns of two output pixels, int16"});
  return prepared;
}

}  // namespace dmo

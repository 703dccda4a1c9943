// CONV_2D with int8 activations and int8 filters in the cmsis-nn families,
// mirroring TFLM's kernels/cmsis_nn/conv.cc (Prepare's scratch request via
// arm_convolve_wrapper_s8_get_buffer_size; EvalInt8 -> EvalQuantizedPerChannel
// -> arm_convolve_wrapper_s8) and the CMSIS-NN functions the wrapper picks,
// as read in the CMSIS-NN that tensorflow/tflite-micro vendors at
// b793c4414cd5b864e56d531b3f95e817bcacf304 (arm_convolve_s8.c V.3.7.0,
// arm_convolve_1x1_s8.c, arm_nn_mat_mult_nt_t_s8.c,
// arm_convolve_get_buffer_sizes_s8.c V.2.1.1), with what that copy lacks
// from ARM-software/CMSIS-NN: arm_convolve_1x1_s8_fast.c at
// d1c35d332c63c36f347df1bf6f2872f0598d2ee8, arm_nn_mat_mult_kernel_s8_s16.c at
// 7676d05afe20da3be2af4c45f40d64847e6315bd,
// arm_nn_mat_mult_kernel_row_offset_s8_s16.c at
// 1e52d6833aecc075a487005fc16e75ce4c255182, arm_convolve_1_x_n_s8.c at
// 5935b2f2f7fe4afe29fc738c5ecdf1fad30aa37a.
//
// Paths, without MVE:
//  - 1x1, no padding, unit dilation, stride 1: arm_convolve_1x1_s8_fast, one
//    arm_nn_mat_mult_nt_t_s8 over every pixel of every batch.
//  - 1x1, no padding, unit dilation, other strides: arm_convolve_1x1_s8, one
//    arm_nn_mat_mult_nt_t_s8 per output row.
//    arm_nn_mat_mult_nt_t_s8 walks output channels in pairs, and for each
//    pair reads the whole input again, two pixels at a time; so a pixel's
//    output is stored long before the last read of the input.
//  - 1xN (input height 1, filter height 1, unit width dilation, stride_w *
//    input depth a multiple of 4): arm_convolve_1_x_n_s8, which without MVE
//    calls arm_convolve_s8.
//  - otherwise arm_convolve_s8: im2col (memcpy of each in-bounds tap's
//    channels into the scratch, padding taps memset to the input zero
//    point), two pixels per column pair, then arm_nn_mat_mult_kernel_s8_s16
//    storing channel pairs of both pixels; an odd last pixel of a group is
//    finished channel by channel. Groups run one after another, each over
//    every pixel.
// The DSP paths differ only in reading the input 4 bytes at a time in
// arm_nn_mat_mult_nt_t_s8 (row 0's four bytes, then row 1's); the s16
// conversion reads only the scratch. The wrapper's 1x1 and 1xN branches
// also ask for filter depth == input depth (those kernels have no groups),
// so grouped convolutions take arm_convolve_s8.
// int16 activations go to conv_s16.cc (arm_convolve_wrapper_s16). int4
// filters (arm_convolve_wrapper_s4) are not mirrored: dmo's reference
// CONV_2D does not run them, so such ops fall back to it and fail as it does.
// Values: CMSIS-NN's sums start from the bias and fold the input offset in
// differently, which in 32-bit wrapping arithmetic equals the reference's
// sum; requantisation is the reference's, so outputs are TFLM's.
#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "cmsis_conv_shape.h"
#include "cmsis_nn_kernels.h"
#include "dmo/ops/kernels.h"
#include "dmo/ops/eval/conv_arithmetic.h"
#include "../conv2d/conv_quantization.h"

namespace dmo {
namespace {

enum class ConvPath { kOneByOneFast, kOneByOneStrided, kOneByN, kIm2col };

// arm_convolve_wrapper_s8's first test (and its buffer-size twin's).
bool is_unpadded_1x1(const CmsisConvShape& s) {
  return s.pad_width == 0 && s.pad_height == 0 && s.filter_width == 1 && s.filter_height == 1 &&
         s.dilation_width == 1 && s.dilation_height == 1;
}

bool is_1xn(const CmsisConvShape& s) {
  return s.input_height == 1 && s.dilation_width == 1 && s.filter_height == 1 &&
         (int64_t{s.stride_width} * s.input_depth) % 4 == 0;
}

ConvPath select_path(const CmsisConvShape& s) {
  const bool grouped = s.groups() > 1;
  if (is_unpadded_1x1(s) && !grouped) {
    return s.stride_width == 1 && s.stride_height == 1 ? ConvPath::kOneByOneFast : ConvPath::kOneByOneStrided;
  }
  if (is_1xn(s) && !grouped) return ConvPath::kOneByN;
  return ConvPath::kIm2col;
}

// arm_convolve_wrapper_s8_get_buffer_size without MVE (the same with and
// without DSP under GCC in this version): two int16 im2col columns of the
// 4-aligned column length for arm_convolve_s8 (and 1xN, which calls it),
// nothing for the 1x1 kernels. arm_nn_is_convolve_1x1 asks for equal
// input and filter depths, so a grouped 1x1 layer gets arm_convolve_s8's
// columns, which count the input depth, not the filter depth.
int64_t scratch_bytes(const CmsisConvShape& s) {
  if (is_unpadded_1x1(s) && s.groups() == 1) return 0;
  const int64_t columns = int64_t{s.filter_width} * s.filter_height * s.input_depth;
  const int64_t aligned = (columns + 3) / 4 * 4;
  return 2 * aligned * static_cast<int64_t>(sizeof(int16_t));
}

std::string implementation_name(ConvPath path, KernelFamily family) {
  const char* variant = family == KernelFamily::kCmsisNnDsp ? "DSP" : "portable";
  switch (path) {
    case ConvPath::kOneByOneFast: return fmt::format("arm_convolve_1x1_s8_fast ({})", variant);
    case ConvPath::kOneByOneStrided: return fmt::format("arm_convolve_1x1_s8 ({})", variant);
    case ConvPath::kOneByN: return fmt::format("arm_convolve_1_x_n_s8 -> arm_convolve_s8 ({})", variant);
    default: return fmt::format("arm_convolve_s8 ({})", variant);
  }
}

using Arithmetic = QuantizedConvArithmetic<int8_t>;

struct CmsisConvKernel {
  CmsisConvShape s;
  ConvPath path = ConvPath::kIm2col;
  bool dsp = false;
  ConvRequantization requantization;
  // arm_convolve_s8's scratch: two im2col columns (raw input bytes; padding
  // taps hold the input zero point, contributing nothing once offset).
  mutable std::array<std::vector<int8_t>, 2> columns;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const Arithmetic arithmetic(requantization);
    switch (path) {
      case ConvPath::kOneByOneFast: return one_by_one_fast(arithmetic, io, mem);
      case ConvPath::kOneByOneStrided: return one_by_one_strided(arithmetic, io, mem);
      default: return im2col_conv(arithmetic, io, mem);
    }
  }

  // --- arm_nn_mat_mult_nt_t_s8 (1x1 paths) ---------------------------------

  // Input element index of lhs row `row`'s first channel, output element
  // index of its first channel.
  struct Rows {
    int64_t count = 0;
    int64_t first_input = 0, input_step = 0;
    int64_t first_output = 0, output_step = 0;
    int64_t input(int64_t row) const { return first_input + row * input_step; }
    int64_t output(int64_t row) const { return first_output + row * output_step; }
  };

  // Weights and biases are constants outside the arena in every deployed
  // model; they are read through the memory policy as the reference does.
  template <class Memory>
  static int8_t weight(const KernelIO& io, Memory& mem, int64_t index) {
    return mem.template load<int8_t>(io.input(1), index);
  }

  template <class Memory>
  void finish_store(const Arithmetic& arithmetic, const KernelIO& io, Memory& mem, int64_t output_index,
                    int32_t acc, int32_t channel) const {
    const int32_t bias = io.has_input(2) ? mem.template load<int32_t>(io.input(2), channel) : 0;
    mem.template store<int8_t>(io.output(0), output_index, arithmetic.finish(acc, bias, channel));
  }

  // Two lhs rows against channels c and c + 1: both rows' reads interleaved
  // per column (per 4 columns on the DSP path), then four stores.
  template <class Memory>
  void two_rows_two_channels(const Arithmetic& arithmetic, const KernelIO& io, Memory& mem, const Rows& rows,
                             int64_t row, int32_t c) const {
    const TensorRef& input = io.input(0);
    const int32_t depth = s.input_depth;
    const int64_t w0 = int64_t{c} * depth;
    const int64_t w1 = w0 + depth;
    int32_t acc00 = 0, acc01 = 0, acc10 = 0, acc11 = 0;
    const int64_t in0 = rows.input(row), in1 = rows.input(row + 1);
    auto mac = [&](int32_t k, int8_t x0, int8_t x1) {
      const int8_t a0 = weight(io, mem, w0 + k);
      const int8_t a1 = weight(io, mem, w1 + k);
      acc00 = arithmetic.multiply_add(acc00, x0, a0);
      acc01 = arithmetic.multiply_add(acc01, x0, a1);
      acc10 = arithmetic.multiply_add(acc10, x1, a0);
      acc11 = arithmetic.multiply_add(acc11, x1, a1);
    };
    int32_t k = 0;
    if (dsp) {
      for (; k + 4 <= depth; k += 4) {
        std::array<int8_t, 4> x0{}, x1{};
        for (int32_t i = 0; i < 4; ++i) x0[static_cast<size_t>(i)] = mem.template load<int8_t>(input, in0 + k + i);
        for (int32_t i = 0; i < 4; ++i) x1[static_cast<size_t>(i)] = mem.template load<int8_t>(input, in1 + k + i);
        for (int32_t i = 0; i < 4; ++i) mac(k + i, x0[static_cast<size_t>(i)], x1[static_cast<size_t>(i)]);
      }
    }
    for (; k < depth; ++k) {
      const int8_t x0 = mem.template load<int8_t>(input, in0 + k);
      const int8_t x1 = mem.template load<int8_t>(input, in1 + k);
      mac(k, x0, x1);
    }
    finish_store(arithmetic, io, mem, rows.output(row) + c, acc00, c);
    finish_store(arithmetic, io, mem, rows.output(row) + c + 1, acc01, c + 1);
    finish_store(arithmetic, io, mem, rows.output(row + 1) + c, acc10, c);
    finish_store(arithmetic, io, mem, rows.output(row + 1) + c + 1, acc11, c + 1);
  }

  // One lhs row against `channels` (1 or 2) channels from c: the row's reads
  // in column order (4-byte reads on the DSP path keep that order), then the
  // stores.
  template <class Memory>
  void one_row(const Arithmetic& arithmetic, const KernelIO& io, Memory& mem, const Rows& rows, int64_t row,
               int32_t c, int32_t channels) const {
    const TensorRef& input = io.input(0);
    const int32_t depth = s.input_depth;
    std::array<int32_t, 2> acc{};
    for (int32_t k = 0; k < depth; ++k) {
      const int8_t x = mem.template load<int8_t>(input, rows.input(row) + k);
      for (int32_t j = 0; j < channels; ++j) {
        acc[static_cast<size_t>(j)] =
            arithmetic.multiply_add(acc[static_cast<size_t>(j)], x, weight(io, mem, int64_t{c + j} * depth + k));
      }
    }
    for (int32_t j = 0; j < channels; ++j) {
      finish_store(arithmetic, io, mem, rows.output(row) + c + j, acc[static_cast<size_t>(j)], c + j);
    }
  }

  template <class Memory>
  void mat_mult_nt_t(const Arithmetic& arithmetic, const KernelIO& io, Memory& mem, const Rows& rows) const {
    const int32_t channels = s.output_depth;
    int32_t c = 0;
    for (; c + 2 <= channels; c += 2) {
      int64_t row = 0;
      for (; row + 2 <= rows.count; row += 2) two_rows_two_channels(arithmetic, io, mem, rows, row, c);
      if (row < rows.count) one_row(arithmetic, io, mem, rows, row, c, 2);
    }
    if (c < channels) {
      for (int64_t row = 0; row < rows.count; ++row) one_row(arithmetic, io, mem, rows, row, c, 1);
    }
  }

  template <class Memory>
  void one_by_one_fast(const Arithmetic& arithmetic, const KernelIO& io, Memory& mem) const {
    Rows rows;
    rows.count = int64_t{s.batches} * s.input_height * s.input_width;
    rows.input_step = s.input_depth;
    rows.output_step = s.output_depth;
    mat_mult_nt_t(arithmetic, io, mem, rows);
  }

  template <class Memory>
  void one_by_one_strided(const Arithmetic& arithmetic, const KernelIO& io, Memory& mem) const {
    for (int32_t b = 0; b < s.batches; ++b) {
      for (int32_t out_y = 0; out_y < s.output_height; ++out_y) {
        Rows rows;
        rows.count = s.output_width;
        rows.first_input = (int64_t{b} * s.input_height + int64_t{out_y} * s.stride_height) * s.input_width *
                           s.input_depth;
        rows.input_step = int64_t{s.stride_width} * s.input_depth;
        rows.first_output = (int64_t{b} * s.output_height + out_y) * s.output_width * s.output_depth;
        rows.output_step = s.output_depth;
        mat_mult_nt_t(arithmetic, io, mem, rows);
      }
    }
  }

  // --- arm_convolve_s8 ------------------------------------------------------

  // im2col of one output pixel's window for one group: each in-bounds tap's
  // channels loaded in order (the memcpy), padding taps filled.
  template <class Memory>
  void fill_column(const KernelIO& io, Memory& mem, std::vector<int8_t>& column, int32_t batch, int32_t group,
                   int32_t out_y, int32_t out_x) const {
    const TensorRef& input = io.input(0);
    const auto zero_point = static_cast<int8_t>(-requantization.input_offset);
    const int64_t base_y = int64_t{out_y} * s.stride_height - s.pad_height;
    const int64_t base_x = int64_t{out_x} * s.stride_width - s.pad_width;
    size_t at = 0;
    for (int32_t ky = 0; ky < s.filter_height; ++ky) {
      const int64_t in_y = base_y + int64_t{s.dilation_height} * ky;
      for (int32_t kx = 0; kx < s.filter_width; ++kx) {
        const int64_t in_x = base_x + int64_t{s.dilation_width} * kx;
        if (in_y < 0 || in_y >= s.input_height || in_x < 0 || in_x >= s.input_width) {
          for (int32_t ch = 0; ch < s.filter_depth; ++ch) column[at++] = zero_point;
          continue;
        }
        const int64_t first = ((int64_t{batch} * s.input_height + in_y) * s.input_width + in_x) * s.input_depth +
                              int64_t{group} * s.filter_depth;
        for (int32_t ch = 0; ch < s.filter_depth; ++ch) column[at++] = mem.template load<int8_t>(input, first + ch);
      }
    }
  }

  template <class Memory>
  int32_t column_dot(const Arithmetic& arithmetic, const KernelIO& io, Memory& mem, const std::vector<int8_t>& column,
                     int32_t channel) const {
    const int32_t length = s.column_length();
    const int64_t first = int64_t{channel} * length;
    int32_t acc = 0;
    for (int32_t k = 0; k < length; ++k) {
      acc = arithmetic.multiply_add(acc, column[static_cast<size_t>(k)], weight(io, mem, first + k));
    }
    return acc;
  }

  // arm_nn_mat_mult_kernel_s8_s16 (or its row-offset twin for groups): for
  // each channel pair, pixel 0 then pixel 1 of channel c, then of c + 1; an
  // odd last channel for pixel 0 then pixel 1.
  template <class Memory>
  void two_pixels(const Arithmetic& arithmetic, const KernelIO& io, Memory& mem, int32_t first_channel,
                  const std::array<int64_t, 2>& pixel_output) const {
    const int32_t end = first_channel + s.channels_per_group();
    int32_t c = first_channel;
    for (; c + 2 <= end; c += 2) {
      for (int32_t j = 0; j < 2; ++j) {
        const int32_t ch = c + j;
        for (size_t p = 0; p < 2; ++p) {
          finish_store(arithmetic, io, mem, pixel_output[p] + ch, column_dot(arithmetic, io, mem, columns[p], ch), ch);
        }
      }
    }
    if (c < end) {
      for (size_t p = 0; p < 2; ++p) {
        finish_store(arithmetic, io, mem, pixel_output[p] + c, column_dot(arithmetic, io, mem, columns[p], c), c);
      }
    }
  }

  template <class Memory>
  void im2col_conv(const Arithmetic& arithmetic, const KernelIO& io, Memory& mem) const {
    for (auto& column : columns) column.assign(static_cast<size_t>(s.column_length()), 0);
    const int32_t per_group = s.channels_per_group();
    for (int32_t b = 0; b < s.batches; ++b) {
      for (int32_t group = 0; group < s.groups(); ++group) {
        const int32_t first_channel = group * per_group;
        std::array<int64_t, 2> pixel_output{};
        size_t pending = 0;
        for (int32_t out_y = 0; out_y < s.output_height; ++out_y) {
          for (int32_t out_x = 0; out_x < s.output_width; ++out_x) {
            fill_column(io, mem, columns[pending], b, group, out_y, out_x);
            pixel_output[pending] = ((int64_t{b} * s.output_height + out_y) * s.output_width + out_x) * s.output_depth;
            if (++pending == 2) {
              two_pixels(arithmetic, io, mem, first_channel, pixel_output);
              pending = 0;
            }
          }
        }
        if (pending == 1) {  // the odd last pixel, channel by channel
          for (int32_t c = first_channel; c < first_channel + per_group; ++c) {
            finish_store(arithmetic, io, mem, pixel_output[0] + c, column_dot(arithmetic, io, mem, columns[0], c), c);
          }
        }
      }
    }
  }
};

}  // namespace

std::optional<PreparedKernel> prepare_cmsis_nn_conv2d(const OpContext& ctx) {
  // The reference prepare checks operands, shapes and quantisation with the
  // reference kernel's messages; float (and every type but int8 with int8
  // filters) runs the reference kernel, as the glue's Eval does.
  (void)prepare_conv2d(ctx);
  if (ctx.input(0).type() == DataType::kInt16) return prepare_cmsis_nn_conv2d_s16(ctx);
  if (ctx.input(0).type() != DataType::kInt8 || ctx.input(1).type() != DataType::kInt8) return std::nullopt;
  const auto& params = std::get<Conv2DParams>(ctx.op->params);

  CmsisConvKernel kernel;
  kernel.s = cmsis_conv_shape(ctx, params);
  kernel.path = select_path(kernel.s);
  kernel.dsp = ctx.family == KernelFamily::kCmsisNnDsp;
  kernel.requantization =
      per_channel_requantization(ctx, params.activation, kernel.s.output_depth, /*quantized_dimension=*/0);

  const CmsisConvShape shape = kernel.s;
  const ConvPath path = kernel.path;
  PreparedKernel prepared = PreparedKernel::of(std::move(kernel));
  prepared.implementation = implementation_name(path, ctx.family);
  if (const int64_t bytes = scratch_bytes(shape); bytes > 0) {
    prepared.scratch.push_back(KernelScratch{bytes, "im2col columns of two output pixels, int16"});
  }
  return prepared;
}

}  // namespace dmo

// arm_transpose_conv_s8, the path arm_transpose_conv_wrapper_s8 takes for
// int8 TRANSPOSE_CONV with a stride above 2 or at most 16 input channels
// (TFLM's kernels/cmsis_nn/transpose_conv.cc Eval -> EvalQuantizedPerChannel).
// Read in CMSIS-NN's arm_transpose_conv_s8.c V.2.0.0 and
// arm_nn_transpose_conv_row_s8_s32.c V.1.0.0 as FabKlein/CMSIS-NN holds
// them at b8dbf389f91ce5b15c4042fc26c11a6ec763cbbd (a fork that carries
// Arm's releases of these files),
// with the row flush as Arm later corrected it: when the top padding is
// not a multiple of the stride, the input row where the padding ends
// flushes the rows it completes, and no row past the output is written.
//
// The scratch (ctx) holds max(filter height, stride) rows of int32 sums,
// each as wide as the input spread by the stride plus the filter; it
// starts as the bias (or zeros). Per input row, in order:
//  - arm_nn_transpose_conv_row_s8_s32 reads only that input row: groups of
//    4 input pixels, then 2, then 1; per output channel, filter row (rows
//    that land above or below the output are skipped) and filter column,
//    it reads every channel of the group's pixels (portable: channel by
//    channel, each pixel in turn; DSP: 4 channels of pixel 0, of pixel 1,
//    ..., then the leftover channels one by one) and adds each pixel's dot
//    product into the rolling row the tap lands in.
//  - the output rows that no later input row can reach are requantized
//    from the buffer (skipping the left padding) and stored in output
//    order, and their buffer rows reset to the bias.
// After the last input row the rows still in the buffer are stored. So an
// output row is written once every input row that reaches it has been
// read, which is what lets the output overlap the input's start.
// Values: the sums wrap in int32, so they equal the reference's; the
// requantization is the reference kernel's.
#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "transpose_conv_s8.h"

namespace dmo {
namespace {

struct TransposeConvRowsS8Kernel {
  TransposeConvS8Layer l;
  bool dsp = false;
  // arm_transpose_conv_s8's ctx buffer: rolling rows of int32 sums.
  mutable std::vector<int32_t> rows;
  mutable std::vector<int32_t> bias;  // the bias tensor, read once per run

  int64_t row_elements() const { return rolling_buffer_columns(l) * l.output_depth; }
  int64_t buffer_elements() const { return rolling_buffer_rows(l) * row_elements(); }

  void reset_row(int64_t first) const {
    for (int64_t i = 0; i < row_elements(); ++i) {
      rows[static_cast<size_t>(first + i)] = l.has_bias ? bias[static_cast<size_t>(i % l.output_depth)] : 0;
    }
  }

  // The dot products of `count` consecutive input pixels from `x` with one
  // filter tap, reading the input in arm_nn_transpose_conv_row_s8_s32's
  // order for this family.
  template <class Memory>
  std::array<int32_t, 4> tap_sums(const KernelIO& io, Memory& mem, int64_t b, int64_t y, int64_t x, int64_t count,
                                  int64_t oc, int64_t fy, int64_t fx) const {
    const TensorRef& input = io.input(kTransposeConvInput);
    const TensorRef& filter = io.input(kTransposeConvFilter);
    std::array<int32_t, 4> sums{};
    auto weight = [&](int64_t c) { return int32_t{mem.template load<int8_t>(filter, l.filter_index(oc, fy, fx, c))}; };
    auto value = [&](int64_t p, int64_t c) {
      return int32_t{mem.template load<int8_t>(input, l.input_index(b, y, x + p, c))} + l.input_offset;
    };
    int64_t c = 0;
    if (dsp) {
      for (; c + 4 <= l.input_depth; c += 4) {
        std::array<std::array<int32_t, 4>, 4> values{};
        for (int64_t p = 0; p < count; ++p) {
          for (int64_t i = 0; i < 4; ++i) values[static_cast<size_t>(p)][static_cast<size_t>(i)] = value(p, c + i);
        }
        for (int64_t i = 0; i < 4; ++i) {
          const int32_t w = weight(c + i);
          for (int64_t p = 0; p < count; ++p) {
            sums[static_cast<size_t>(p)] =
                wrapping_mac(sums[static_cast<size_t>(p)], values[static_cast<size_t>(p)][static_cast<size_t>(i)], w);
          }
        }
      }
    }
    for (; c < l.input_depth; ++c) {
      std::array<int32_t, 4> values{};
      for (int64_t p = 0; p < count; ++p) values[static_cast<size_t>(p)] = value(p, c);
      const int32_t w = weight(c);
      for (int64_t p = 0; p < count; ++p) {
        sums[static_cast<size_t>(p)] = wrapping_mac(sums[static_cast<size_t>(p)], values[static_cast<size_t>(p)], w);
      }
    }
    return sums;
  }

  // One call of arm_nn_transpose_conv_row_s8_s32 for `count` pixels from x:
  // filter rows skip_top.. land in the rolling rows from `first_row`.
  template <class Memory>
  void accumulate_pixels(const KernelIO& io, Memory& mem, int64_t b, int64_t y, int64_t x, int64_t count,
                         int64_t first_row, int64_t skip_top, int64_t filter_rows) const {
    for (int64_t oc = 0; oc < l.output_depth; ++oc) {
      int64_t row = first_row;
      for (int64_t r = 0; r < filter_rows; ++r) {
        for (int64_t fx = 0; fx < l.filter_width; ++fx) {
          const std::array<int32_t, 4> sums = tap_sums(io, mem, b, y, x, count, oc, skip_top + r, fx);
          for (int64_t p = 0; p < count; ++p) {
            int32_t& acc = rows[static_cast<size_t>(row + ((x + p) * l.stride_width + fx) * l.output_depth + oc)];
            acc = fixed::wrapping_add(acc, sums[static_cast<size_t>(p)]);
          }
        }
        row = (row + row_elements()) % buffer_elements();
      }
    }
  }

  template <class Memory>
  void accumulate_input_row(const KernelIO& io, Memory& mem, int64_t b, int64_t y, int64_t first_row) const {
    const int64_t skip_top = std::max<int64_t>(0, l.pad_height - y * l.stride_height);
    // CMSIS-NN keeps one row past the output's last (it is never stored).
    const int64_t skip_bottom =
        std::max<int64_t>(0, y * l.stride_height + l.filter_height - (l.pad_height + l.output_height) - 1);
    const int64_t filter_rows = l.filter_height - skip_top - skip_bottom;
    int64_t x = 0;
    for (; x + 4 <= l.input_width; x += 4) accumulate_pixels(io, mem, b, y, x, 4, first_row, skip_top, filter_rows);
    if (l.input_width - x >= 2) {
      accumulate_pixels(io, mem, b, y, x, 2, first_row, skip_top, filter_rows);
      x += 2;
    }
    if (x < l.input_width) accumulate_pixels(io, mem, b, y, x, 1, first_row, skip_top, filter_rows);
  }

  template <class Memory>
  void store_row(const KernelIO& io, Memory& mem, int64_t b, int64_t output_row, int64_t buffer_row) const {
    const TensorRef& output = io.output(0);
    int64_t at = buffer_row + l.pad_width * l.output_depth;
    for (int64_t x = 0; x < l.output_width; ++x) {
      for (int64_t c = 0; c < l.output_depth; ++c) {
        mem.template store<int8_t>(output, l.output_index(b, output_row, x, c),
                                   l.requantize(rows[static_cast<size_t>(at++)], c));
      }
    }
  }

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    if (l.has_bias) {
      for (int64_t c = 0; c < l.output_depth; ++c) {
        bias[static_cast<size_t>(c)] = mem.template load<int32_t>(io.input(kTransposeConvBias), c);
      }
    }
    for (int64_t b = 0; b < l.batches; ++b) {
      for (int64_t r = 0; r < rolling_buffer_rows(l); ++r) reset_row(r * row_elements());
      int64_t output_row = 0, buffer_row = 0;
      auto advance = [&] {
        buffer_row = (buffer_row + row_elements()) % buffer_elements();
        ++output_row;
      };
      for (int64_t y = 0; y < l.input_height; ++y) {
        accumulate_input_row(io, mem, b, y, buffer_row);
        // Output rows this input row completes: those above the next input
        // row's first tap, less the top padding, never past the output.
        int64_t complete = std::max<int64_t>(0, (y + 1) * l.stride_height - l.pad_height) -
                           std::max<int64_t>(0, y * l.stride_height - l.pad_height);
        complete = std::min(complete, l.output_height - output_row);
        for (int64_t i = 0; i < complete; ++i) {
          store_row(io, mem, b, output_row, buffer_row);
          reset_row(buffer_row);
          advance();
        }
      }
      for (int64_t i = 0; i < l.filter_height - l.stride_height; ++i) {
        if (output_row < l.output_height) store_row(io, mem, b, output_row, buffer_row);
        advance();
      }
    }
  }
};

}  // namespace

PreparedKernel transpose_conv_rows_s8_kernel(const TransposeConvS8Layer& layer, bool dsp) {
  TransposeConvRowsS8Kernel kernel;
  kernel.l = layer;
  kernel.dsp = dsp;
  kernel.rows.assign(static_cast<size_t>(kernel.buffer_elements()), 0);
  kernel.bias.assign(static_cast<size_t>(layer.has_bias ? layer.output_depth : 0), 0);
  return PreparedKernel::of(std::move(kernel));
}

}  // namespace dmo

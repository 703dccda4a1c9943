// CONV_2D's loop nest, mirroring TFLM's conv.cc ConvEval
// (reference_ops::Conv, reference_integer_ops::ConvPerChannel): batch,
// out y, out x, out channel, then filter y, filter x, in channel; taps in
// the padding are skipped, not loaded (src/ops/conv2d/conv2d.cc prepares
// it). Freestanding: the host kernel and generated device code run this
// one nest, over any tensor reference with the TensorRef members it uses
// (index, and what the memory policy reads).
#pragma once

#include <cstdint>

#include "dmo/ops/eval/address_only.h"
#include "dmo/ops/eval/taps.h"
#include "dmo/ops/eval/walk_index.h"
#include "dmo/ops/eval/weighted_operands.h"
#include "dmo/ops/output_region.h"

namespace dmo {

struct ConvGeometry {
  int32_t batches = 0;
  int32_t input_height = 0, input_width = 0, input_depth = 0;
  int32_t filter_height = 0, filter_width = 0, filter_depth = 0;
  int32_t output_height = 0, output_width = 0, output_depth = 0;
  int32_t filters_per_group = 0;
  int32_t stride_height = 1, stride_width = 1;
  int32_t dilation_height = 1, dilation_width = 1;
  int32_t pad_height = 0, pad_width = 0;
};

// One output pixel under the address-only policy, when every channel reads
// the same input window: the loop nest reads the window, stores channel 0,
// reads it again, ..., stores the last channel. The fold
// (model/safe_overlap_formula.h) keeps, per read, the highest byte written
// before it, which only grows, so of identical reads only the one before
// the pixel's last store can bound O_s: stores of every channel but the
// last, the window once, the last store give the same O_s in one read
// instead of one per channel, and the stores before it fold as one run.
// The weights and bias are not the pair's tensors, so their loads leave
// the fold alone.
template <class Input, class Output, class IO, class Memory>
void address_only_pixel(const ConvGeometry& g, const IO& io, Memory& mem, int32_t batch,
                        int64_t in_y_origin, int64_t in_x_origin, const TapSpan& inside_y, const TapSpan& inside_x,
                        int64_t pixel_index) {
  const auto& input = io.input(0);
  const auto& output = io.output(0);
  const bool descending = io.descending;
  auto output_at = [&](int32_t c) { return pixel_index + walk_index(c, g.output_depth, descending); };
  auto read_window = [&] {
    for (int32_t filter_y = inside_y.first; filter_y <= inside_y.last; ++filter_y) {
      const int64_t in_y = in_y_origin + int64_t{g.dilation_height} * filter_y;
      for (int32_t filter_x = inside_x.first; filter_x <= inside_x.last; ++filter_x) {
        const int64_t in_x = in_x_origin + int64_t{g.dilation_width} * filter_x;
        const int64_t input_base = ((int64_t{batch} * g.input_height + in_y) * g.input_width + in_x) * g.input_depth;
        mem.template load_run<Input>(input, input_base, g.filter_depth);
      }
    }
  };
  if (g.output_depth > 1) mem.template store_run<Output>(output, output_at(0), output_at(g.output_depth - 2), g.output_depth - 1);
  read_window();
  if (g.output_depth > 0) mem.template store<Output>(output, output_at(g.output_depth - 1), Output{});
}

template <class Arithmetic, class IO, class Memory>
void conv_loops(const ConvGeometry& g, const Arithmetic& arithmetic, const IO& io, Memory& mem) {
  using Input = typename Arithmetic::Input;
  using Filter = typename Arithmetic::Filter;
  using Bias = typename Arithmetic::Bias;
  using Output = typename Arithmetic::Output;
  const WeightedOperands operands(io);
  const auto& [input, filter, output, has_bias, bias] = operands;

  const bool descending = io.descending;
  const IndexRange rows = io.region.rows(g.output_height);
  const IndexRange cols = io.region.cols(g.output_width);
  // A division per output element is dear next to a short channel loop.
  const bool grouped = g.filters_per_group != g.output_depth;
  // Every output channel of a pixel reads the same input window when the
  // conv is not grouped and neither weights nor bias are the input itself.
  const bool pixel_reads_one_input_window =
      !grouped && filter.index != input.index && (!has_bias || bias.index != input.index);
  for (int32_t b = 0; b < g.batches; ++b) {
    const int32_t batch = walk_index(b, g.batches, descending);
    for (int32_t y = 0; y < rows.size(); ++y) {
      const int32_t out_y = walk_index(y, rows, descending);
      const int64_t in_y_origin = int64_t{out_y} * g.stride_height - g.pad_height;
      for (int32_t x = 0; x < cols.size(); ++x) {
        const int32_t out_x = walk_index(x, cols, descending);
        const int64_t in_x_origin = int64_t{out_x} * g.stride_width - g.pad_width;
        const int64_t pixel_index = ((int64_t{batch} * g.output_height + out_y) * g.output_width + out_x) * g.output_depth;
        // The taps inside the input, found once per output pixel: every
        // channel visits exactly them, in the same order.
        const TapSpan inside_y = taps_inside(in_y_origin, g.dilation_height, g.filter_height, g.input_height);
        const TapSpan inside_x = taps_inside(in_x_origin, g.dilation_width, g.filter_width, g.input_width);
        if constexpr (records_addresses_only_v<Memory>) {
          if (pixel_reads_one_input_window) {
            address_only_pixel<Input, Output>(g, io, mem, batch, in_y_origin, in_x_origin, inside_y, inside_x, pixel_index);
            continue;
          }
        }
        for (int32_t c = 0; c < g.output_depth; ++c) {
          const int32_t out_channel = walk_index(c, g.output_depth, descending);
          const int64_t output_index = pixel_index + out_channel;
          const int32_t group = grouped ? out_channel / g.filters_per_group : 0;
          typename Arithmetic::Accumulator acc{};
          for (int32_t filter_y = inside_y.first; filter_y <= inside_y.last; ++filter_y) {
            const int64_t in_y = in_y_origin + int64_t{g.dilation_height} * filter_y;
            for (int32_t filter_x = inside_x.first; filter_x <= inside_x.last; ++filter_x) {
              const int64_t in_x = in_x_origin + int64_t{g.dilation_width} * filter_x;
              const int64_t input_base =
                  ((int64_t{batch} * g.input_height + in_y) * g.input_width + in_x) * g.input_depth +
                  int64_t{group} * g.filter_depth;
              const int64_t filter_base =
                  ((int64_t{out_channel} * g.filter_height + filter_y) * g.filter_width + filter_x) * g.filter_depth;
              if constexpr (records_addresses_only_v<Memory>) {
                // Only the order of addresses counts, and a tap's channel
                // loop reads two runs before the next store.
                mem.template load_run<Input>(input, input_base, g.filter_depth);
                mem.template load_run<Filter>(filter, filter_base, g.filter_depth);
              } else {
                for (int32_t in_channel = 0; in_channel < g.filter_depth; ++in_channel) {
                  const Input in = mem.template load<Input>(input, input_base + in_channel);
                  const Filter weight = mem.template load<Filter>(filter, filter_base + in_channel);
                  acc = arithmetic.multiply_add(acc, in, weight);
                }
              }
            }
          }
          const Bias bias_value = has_bias ? mem.template load<Bias>(bias, out_channel) : Bias{};
          mem.template store<Output>(output, output_index, arithmetic.finish(acc, bias_value, out_channel));
        }
      }
    }
  }
}

}  // namespace dmo

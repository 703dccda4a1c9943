// DEPTHWISE_CONV_2D's loop nest, mirroring TFLM's reference_ops::DepthwiseConv
// and reference_integer_ops::DepthwiseConvPerChannel: batch, out y, out x,
// in channel, multiplier, then filter y, filter x; output channel = in
// channel * M + m; taps in the padding are skipped, not loaded
// (src/ops/depthwise_conv2d/ prepares it). Freestanding: shared by the host
// kernel and generated device code.
#pragma once

#include <cstdint>

#include "dmo/ops/eval/address_only.h"
#include "dmo/ops/eval/taps.h"
#include "dmo/ops/eval/walk_index.h"
#include "dmo/ops/eval/weighted_operands.h"
#include "dmo/ops/output_region.h"

namespace dmo {

struct DepthwiseGeometry {
  int32_t batches = 0;
  int32_t input_height = 0, input_width = 0, input_depth = 0;
  int32_t filter_height = 0, filter_width = 0;
  int32_t output_height = 0, output_width = 0, output_depth = 0;
  int32_t depth_multiplier = 1;
  int32_t stride_height = 1, stride_width = 1;
  int32_t dilation_height = 1, dilation_width = 1;
  int32_t pad_height = 0, pad_width = 0;
};

// One output pixel under the address-only policy when neither the weights
// nor the bias are the input: in walk order the pixel's channels are
// stored one after another, and of its reads only those of the first two
// input channels and the last can bound O_s (see depthwise_loops). Each
// is folded after the stores before it, which fold as runs; the weights'
// and bias' loads leave the fold alone.
template <class Input, class Output, class IO, class Memory>
void address_only_depthwise_pixel(const DepthwiseGeometry& g, const IO& io, Memory& mem, int32_t batch,
                                  int64_t in_y_origin, int64_t in_x_origin, const TapSpan& ys, const TapSpan& xs,
                                  int64_t pixel_index) {
  const auto& input = io.input(0);
  const auto& output = io.output(0);
  const bool descending = io.descending;
  // Position p of the walk stores output channel p (descending: the p-th
  // from the last): in_channel * M + m with both walked the same way.
  const int64_t channels = int64_t{g.input_depth} * g.depth_multiplier;
  auto output_at = [&](int64_t position) { return pixel_index + (descending ? channels - 1 - position : position); };
  int64_t stored = 0;
  auto store_up_to = [&](int64_t end) {
    if (end > stored) mem.template store_run<Output>(output, output_at(stored), output_at(end - 1), end - stored);
    stored = end;
  };
  if (ys.first <= ys.last && xs.first <= xs.last) {
    for (int32_t ic : {0, 1, g.input_depth - 1}) {
      const int64_t position = int64_t{ic} * g.depth_multiplier + g.depth_multiplier - 1;
      if (ic < 0 || ic >= g.input_depth || position < stored) continue;  // one or two channels
      store_up_to(position);
      const int32_t in_channel = walk_index(ic, g.input_depth, descending);
      auto input_at = [&](int32_t filter_y, int32_t filter_x) {
        const int64_t in_y = in_y_origin + int64_t{g.dilation_height} * filter_y;
        const int64_t in_x = in_x_origin + int64_t{g.dilation_width} * filter_x;
        return ((int64_t{batch} * g.input_height + in_y) * g.input_width + in_x) * g.input_depth + in_channel;
      };
      mem.template load_span<Input>(input, input_at(ys.first, xs.first), input_at(ys.last, xs.last));
      store_up_to(position + 1);
    }
  }
  store_up_to(channels);
}

template <class Arithmetic, class IO, class Memory>
void depthwise_loops(const DepthwiseGeometry& g, const Arithmetic& arithmetic, const IO& io, Memory& mem) {
  using Input = typename Arithmetic::Input;
  using Filter = typename Arithmetic::Filter;
  using Bias = typename Arithmetic::Bias;
  using Output = typename Arithmetic::Output;
  const WeightedOperands operands(io);
  const auto& [input, filter, output, has_bias, bias] = operands;

  // NHWC: output channel = in_channel * M + m. Walking descending, every
  // output loop runs backwards (see walk_order.h); a region computes a band
  // of output rows and columns.
  const bool descending = io.descending;
  const IndexRange rows = io.region.rows(g.output_height);
  const IndexRange cols = io.region.cols(g.output_width);
  // Address-only: which of a pixel's channel reads can bound O_s. Within a
  // pixel every channel reads the same taps, so the lowest byte a channel
  // reads grows by one element per input channel, and the highest byte
  // written before it by one element per store: the fold's term for a
  // read (model/safe_overlap_formula.h) is affine in the input channel
  // from the second on, and largest at the last multiplier of a channel.
  // The first channel's read, after the previous pixel's stores, the
  // second's and the last's therefore give the pixel's largest term; the
  // other reads cannot change O_s. Not when weights or bias are the input.
  const bool skip_inner_reads = filter.index != input.index && (!has_bias || bias.index != input.index);
  auto reads_bound_overlap = [&](int32_t ic, int32_t mi) {
    return !skip_inner_reads ||
           (mi == g.depth_multiplier - 1 && (ic <= 1 || ic == g.input_depth - 1));
  };
  for (int32_t b = 0; b < g.batches; ++b) {
    const int32_t batch = walk_index(b, g.batches, descending);
    for (int32_t y = 0; y < rows.size(); ++y) {
      const int32_t out_y = walk_index(y, rows, descending);
      const int64_t in_y_origin = int64_t{out_y} * g.stride_height - g.pad_height;
      for (int32_t x = 0; x < cols.size(); ++x) {
        const int32_t out_x = walk_index(x, cols, descending);
        const int64_t in_x_origin = int64_t{out_x} * g.stride_width - g.pad_width;
        const int64_t pixel_index = ((int64_t{batch} * g.output_height + out_y) * g.output_width + out_x) * g.output_depth;
        // The taps inside the input, found once per output pixel: the
        // channel loops then visit exactly them, in the same order.
        const TapSpan inside_y = taps_inside(in_y_origin, g.dilation_height, g.filter_height, g.input_height);
        const TapSpan inside_x = taps_inside(in_x_origin, g.dilation_width, g.filter_width, g.input_width);
        if constexpr (records_addresses_only_v<Memory>) {
          if (skip_inner_reads) {
            address_only_depthwise_pixel<Input, Output>(g, io, mem, batch, in_y_origin, in_x_origin, inside_y,
                                                        inside_x, pixel_index);
            continue;
          }
        }
        for (int32_t ic = 0; ic < g.input_depth; ++ic) {
          const int32_t in_channel = walk_index(ic, g.input_depth, descending);
          for (int32_t mi = 0; mi < g.depth_multiplier; ++mi) {
            const int32_t m = walk_index(mi, g.depth_multiplier, descending);
            const int32_t out_channel = in_channel * g.depth_multiplier + m;
            const int64_t output_index = pixel_index + out_channel;
            typename Arithmetic::Accumulator acc{};
            if constexpr (records_addresses_only_v<Memory>) {
              // Only the order of addresses counts, and the taps inside the
              // input are read before the next store: the first and the
              // last of them span all the others. The stored value is not
              // computed (no requantization): only its address counts.
              const TapSpan& ys = inside_y;
              const TapSpan& xs = inside_x;
              if (ys.first <= ys.last && xs.first <= xs.last && reads_bound_overlap(ic, mi)) {
                auto input_at = [&](int32_t filter_y, int32_t filter_x) {
                  const int64_t in_y = in_y_origin + int64_t{g.dilation_height} * filter_y;
                  const int64_t in_x = in_x_origin + int64_t{g.dilation_width} * filter_x;
                  return ((int64_t{batch} * g.input_height + in_y) * g.input_width + in_x) * g.input_depth + in_channel;
                };
                auto filter_at = [&](int32_t filter_y, int32_t filter_x) {
                  return (int64_t{filter_y} * g.filter_width + filter_x) * g.output_depth + out_channel;
                };
                mem.template load_span<Input>(input, input_at(ys.first, xs.first), input_at(ys.last, xs.last));
                mem.template load_span<Filter>(filter, filter_at(ys.first, xs.first), filter_at(ys.last, xs.last));
              }
              if (has_bias) mem.template load<Bias>(bias, out_channel);
              mem.template store<Output>(output, output_index, Output{});
              continue;
            } else {
              for (int32_t filter_y = inside_y.first; filter_y <= inside_y.last; ++filter_y) {
                const int64_t in_y = in_y_origin + int64_t{g.dilation_height} * filter_y;
                for (int32_t filter_x = inside_x.first; filter_x <= inside_x.last; ++filter_x) {
                  const int64_t in_x = in_x_origin + int64_t{g.dilation_width} * filter_x;
                  const int64_t input_index =
                      ((int64_t{batch} * g.input_height + in_y) * g.input_width + in_x) * g.input_depth + in_channel;
                  const int64_t filter_index =
                      (int64_t{filter_y} * g.filter_width + filter_x) * g.output_depth + out_channel;
                  const Input in = mem.template load<Input>(input, input_index);
                  const Filter weight = mem.template load<Filter>(filter, filter_index);
                  acc = arithmetic.multiply_add(acc, in, weight);
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
}

}  // namespace dmo

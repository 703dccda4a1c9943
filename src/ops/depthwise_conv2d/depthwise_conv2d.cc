// DEPTHWISE_CONV_2D, mirroring TFLM's reference_ops::DepthwiseConv (float,
// uint8) and reference_integer_ops::DepthwiseConvPerChannel (int8): NHWC
// input, filter [1, KH, KW, IC * M], optional bias, in their loop order (batch, out y, out x, in channel, multiplier, then
// filter y, filter x). Output channel = in channel * M + m. Taps that fall in
// the padding are skipped, not loaded.
#include <fmt/format.h>

#include <type_traits>
#include <variant>

#include "../conv2d/conv_arithmetic.h"
#include "../conv2d/conv_like_kernel.h"
#include "../conv2d/conv_operand_types.h"
#include "../conv2d/conv_quantization.h"
#include "depthwise_geometry.h"
#include "dmo/ops/kernels.h"
#include "dmo/ops/padding.h"
#include "dmo/ops/walk_order.h"

namespace dmo {

DepthwiseGeometry depthwise_geometry(const OpContext& ctx, const DepthwiseConv2DParams& params) {
  const TensorRef& input = ctx.input(0);
  const TensorRef& filter = ctx.input(1);
  const TensorRef& output = ctx.output(0);
  ctx.require(input.rank() == 4, fmt::format("input must be 4-D (NHWC), is {}", shape_to_string(input.shape())));
  ctx.require(filter.rank() == 4,
              fmt::format("filter must be 4-D (1, H, W, channels), is {}", shape_to_string(filter.shape())));
  ctx.require(output.rank() == 4, fmt::format("output must be 4-D (NHWC), is {}", shape_to_string(output.shape())));
  ctx.require(params.stride_h >= 1 && params.stride_w >= 1, "strides must be at least 1");
  ctx.require(params.dilation_h >= 1 && params.dilation_w >= 1, "dilations must be at least 1");

  DepthwiseGeometry g;
  g.batches = input.dim(0);
  g.input_height = input.dim(1);
  g.input_width = input.dim(2);
  g.input_depth = input.dim(3);
  g.filter_height = filter.dim(1);
  g.filter_width = filter.dim(2);
  g.output_height = output.dim(1);
  g.output_width = output.dim(2);
  g.output_depth = output.dim(3);
  ctx.require(output.dim(0) == g.batches, "input and output batch sizes differ");
  ctx.require(filter.dim(0) == 1, fmt::format("filter dimension 0 must be 1, is {}", filter.dim(0)));
  ctx.require(filter.dim(3) == g.output_depth,
              fmt::format("filter has {} channels, output has {}", filter.dim(3), g.output_depth));
  // Some converters write 0: the multiplier then follows from the shapes.
  g.depth_multiplier = params.depth_multiplier;
  if (g.depth_multiplier == 0 && g.input_depth > 0) g.depth_multiplier = g.output_depth / g.input_depth;
  ctx.require(g.depth_multiplier >= 0 && int64_t{g.input_depth} * g.depth_multiplier == g.output_depth,
              fmt::format("{} output channels are not {} input channels times depth multiplier {}", g.output_depth,
                          g.input_depth, params.depth_multiplier));
  g.stride_height = params.stride_h;
  g.stride_width = params.stride_w;
  g.dilation_height = params.dilation_h;
  g.dilation_width = params.dilation_w;
  // The model's output size fixes the padding, as it does in TFLite Micro.
  g.pad_height = window_padding_before(g.input_height, g.filter_height, g.stride_height, g.dilation_height,
                                       g.output_height);
  g.pad_width =
      window_padding_before(g.input_width, g.filter_width, g.stride_width, g.dilation_width, g.output_width);
  if (ctx.has_input(2)) {
    ctx.require(ctx.input(2).elements() == g.output_depth,
                fmt::format("bias has {} elements for {} output channels", ctx.input(2).elements(), g.output_depth));
  }
  return g;
}

namespace {

template <class Arithmetic, class Memory>
void depthwise_loops(const DepthwiseGeometry& g, const Arithmetic& arithmetic, const KernelIO& io, Memory& mem) {
  using Input = typename Arithmetic::Input;
  using Filter = typename Arithmetic::Filter;
  using Bias = typename Arithmetic::Bias;
  using Output = typename Arithmetic::Output;
  const TensorRef& input = io.input(0);
  const TensorRef& filter = io.input(1);
  const TensorRef& output = io.output(0);
  const bool has_bias = io.has_input(2);
  const TensorRef bias = has_bias ? io.input(2) : TensorRef{};

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
        for (int32_t ic = 0; ic < g.input_depth; ++ic) {
          const int32_t in_channel = walk_index(ic, g.input_depth, descending);
          for (int32_t mi = 0; mi < g.depth_multiplier; ++mi) {
            const int32_t m = walk_index(mi, g.depth_multiplier, descending);
            const int32_t out_channel = in_channel * g.depth_multiplier + m;
            const int64_t output_index = pixel_index + out_channel;
            typename Arithmetic::Accumulator acc{};
            if constexpr (std::is_same_v<Memory, AddressMemory>) {
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

struct DepthwiseLoops {
  template <class Arithmetic, class Memory>
  static void run(const DepthwiseGeometry& g, const Arithmetic& arithmetic, const KernelIO& io, Memory& mem) {
    depthwise_loops(g, arithmetic, io, mem);
  }
};

}  // namespace

PreparedKernel prepare_depthwise_conv2d(const OpContext& ctx) {
  require_conv_operand_counts(ctx, "filter");
  const auto* params = std::get_if<DepthwiseConv2DParams>(&ctx.op->params);
  ctx.require(params != nullptr, "missing DEPTHWISE_CONV_2D parameters");
  require_conv_operand_types(ctx);
  ConvLikeKernel<DepthwiseGeometry, DepthwiseLoops> k;
  k.g = depthwise_geometry(ctx, *params);
  k.prepare_arithmetic(ctx, params->activation, k.g.output_depth, /*quantized_dimension=*/3);
  return PreparedKernel::of(std::move(k));
}

}  // namespace dmo

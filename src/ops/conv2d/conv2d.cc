// CONV_2D, mirroring TFLM's conv.cc ConvEval (tensorflow/tflite-micro
// afbf908ac6e9a47ac4990778bb4b3fd94ffee021): reference_ops::Conv (float,
// uint8) and reference_integer_ops::ConvPerChannel (int8; int16 input with
// int8 filter and an int64 bias, or an int32 bias or none: its int16
// overload, read at 68f5545766da1905ca80b47effeef00aedd8f6b9, which neither
// checks nor applies zero points; only the activation range uses the
// output's). NHWC input, OHWI filter,
// optional bias, in their loop order (batch, out y, out x, out channel,
// then filter y, filter x, in channel). Taps that fall in the padding are
// skipped, not loaded. Walking descending, the four outer loops run
// backwards (see walk_order.h); a region computes a band of output rows and
// columns. Grouped convolution (filter depth dividing the input
// depth) is supported as TFLite does.
#include <fmt/format.h>

#include <type_traits>
#include <variant>

#include "conv_arithmetic.h"
#include "conv_like_kernel.h"
#include "conv_operand_types.h"
#include "conv_quantization.h"
#include "dmo/ops/kernels.h"
#include "dmo/ops/padding.h"
#include "dmo/ops/walk_order.h"

namespace dmo {
namespace {

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

ConvGeometry conv_geometry(const OpContext& ctx, const Conv2DParams& params) {
  const TensorRef& input = ctx.input(0);
  const TensorRef& filter = ctx.input(1);
  const TensorRef& output = ctx.output(0);
  ctx.require(input.rank() == 4, fmt::format("input must be 4-D (NHWC), is {}", shape_to_string(input.shape())));
  ctx.require(filter.rank() == 4, fmt::format("filter must be 4-D (OHWI), is {}", shape_to_string(filter.shape())));
  ctx.require(output.rank() == 4, fmt::format("output must be 4-D (NHWC), is {}", shape_to_string(output.shape())));
  ctx.require(params.stride_h >= 1 && params.stride_w >= 1, "strides must be at least 1");
  ctx.require(params.dilation_h >= 1 && params.dilation_w >= 1, "dilations must be at least 1");

  ConvGeometry g;
  g.batches = input.dim(0);
  g.input_height = input.dim(1);
  g.input_width = input.dim(2);
  g.input_depth = input.dim(3);
  g.filter_height = filter.dim(1);
  g.filter_width = filter.dim(2);
  g.filter_depth = filter.dim(3);
  g.output_height = output.dim(1);
  g.output_width = output.dim(2);
  g.output_depth = output.dim(3);
  ctx.require(output.dim(0) == g.batches, "input and output batch sizes differ");
  ctx.require(filter.dim(0) == g.output_depth,
              fmt::format("filter has {} output channels, output has {}", filter.dim(0), g.output_depth));
  ctx.require(g.filter_depth > 0 && g.input_depth % g.filter_depth == 0,
              fmt::format("filter depth {} does not divide input depth {}", g.filter_depth, g.input_depth));
  const int32_t groups = g.input_depth / g.filter_depth;
  ctx.require(groups > 0 && g.output_depth % groups == 0,
              fmt::format("{} output channels do not split into {} groups", g.output_depth, groups));
  g.filters_per_group = g.output_depth / groups;
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

// One output pixel under the address-only policy, when every channel reads
// the same input window: the loop nest reads the window, stores channel 0,
// reads it again, ..., stores the last channel. The fold
// (model/safe_overlap_formula.h) keeps, per read, the highest byte written
// before it, which only grows, so of identical reads only the one before
// the pixel's last store can bound O_s: stores of every channel but the
// last, the window once, the last store give the same O_s in one read
// instead of one per channel. The weights and bias are not the pair's
// tensors, so their loads leave the fold alone.
template <class Input, class Output>
void address_only_pixel(const ConvGeometry& g, const KernelIO& io, AddressMemory& mem, int32_t batch,
                        int64_t in_y_origin, int64_t in_x_origin, const TapSpan& inside_y, const TapSpan& inside_x,
                        int64_t pixel_index) {
  const TensorRef& input = io.input(0);
  const TensorRef& output = io.output(0);
  const bool descending = io.descending;
  auto store = [&](int32_t c) {
    mem.store<Output>(output, pixel_index + walk_index(c, g.output_depth, descending), Output{});
  };
  auto read_window = [&] {
    for (int32_t filter_y = inside_y.first; filter_y <= inside_y.last; ++filter_y) {
      const int64_t in_y = in_y_origin + int64_t{g.dilation_height} * filter_y;
      for (int32_t filter_x = inside_x.first; filter_x <= inside_x.last; ++filter_x) {
        const int64_t in_x = in_x_origin + int64_t{g.dilation_width} * filter_x;
        const int64_t input_base = ((int64_t{batch} * g.input_height + in_y) * g.input_width + in_x) * g.input_depth;
        mem.load_run<Input>(input, input_base, g.filter_depth);
      }
    }
  };
  for (int32_t c = 0; c + 1 < g.output_depth; ++c) store(c);
  read_window();
  if (g.output_depth > 0) store(g.output_depth - 1);
}

template <class Arithmetic, class Memory>
void conv_loops(const ConvGeometry& g, const Arithmetic& arithmetic, const KernelIO& io, Memory& mem) {
  using Input = typename Arithmetic::Input;
  using Filter = typename Arithmetic::Filter;
  using Bias = typename Arithmetic::Bias;
  using Output = typename Arithmetic::Output;
  const TensorRef& input = io.input(0);
  const TensorRef& filter = io.input(1);
  const TensorRef& output = io.output(0);
  const bool has_bias = io.has_input(2);
  const TensorRef bias = has_bias ? io.input(2) : TensorRef{};

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
        if constexpr (std::is_same_v<Memory, AddressMemory>) {
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
              if constexpr (std::is_same_v<Memory, AddressMemory>) {
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

struct ConvLoops {
  template <class Arithmetic, class Memory>
  static void run(const ConvGeometry& g, const Arithmetic& arithmetic, const KernelIO& io, Memory& mem) {
    conv_loops(g, arithmetic, io, mem);
  }
};

// int16 input ("16x8"): the same loop nest with Conv16x8Arithmetic, whose
// accumulator is the bias's type (int32 without a bias, as TFLM reads an
// absent bias as int32).
struct Conv16x8Kernel {
  ConvGeometry g;
  ConvRequantization requantization;  // offsets unused
  bool int64_bias = false;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    if (int64_bias) return conv_loops(g, Conv16x8Arithmetic<int64_t>(requantization), io, mem);
    conv_loops(g, Conv16x8Arithmetic<int32_t>(requantization), io, mem);
  }
};

PreparedKernel prepare_conv16x8(const OpContext& ctx, const Conv2DParams& params) {
  Conv16x8Kernel k;
  k.g = conv_geometry(ctx, params);
  k.int64_bias = ctx.has_input(2) && ctx.input(2).type() == DataType::kInt64;
  k.requantization = per_channel_requantization(ctx, params.activation, k.g.output_depth, /*quantized_dimension=*/0);
  if (k.int64_bias) {
    // The 64-bit MultiplyByQuantizedMultiplier shifts right by 15 - shift.
    for (size_t c = 0; c < k.requantization.multipliers.size(); ++c) {
      const int shift = k.requantization.multipliers[c].shift;
      ctx.require(shift < 8, fmt::format("output channel {} has requantization shift {}, above the 64-bit "
                                         "requantization's limit of 7",
                                         c, shift));
    }
  }
  return PreparedKernel::of(std::move(k));
}

}  // namespace

PreparedKernel prepare_conv2d(const OpContext& ctx) {
  require_conv_operand_counts(ctx, "filter");
  const auto* params = std::get_if<Conv2DParams>(&ctx.op->params);
  ctx.require(params != nullptr, "missing CONV_2D parameters");
  require_conv2d_operand_types(ctx);
  if (ctx.input(0).type() == DataType::kInt16) return prepare_conv16x8(ctx, *params);
  ConvLikeKernel<ConvGeometry, ConvLoops> k;
  k.g = conv_geometry(ctx, *params);
  k.prepare_arithmetic(ctx, params->activation, k.g.output_depth, /*quantized_dimension=*/0);
  return PreparedKernel::of(std::move(k));
}

}  // namespace dmo

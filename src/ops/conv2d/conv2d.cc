// CONV_2D, mirroring TFLM's conv.cc ConvEval (tensorflow/tflite-micro
// 90b983c2): reference_ops::Conv (float, uint8) and
// reference_integer_ops::ConvPerChannel (int8; int16 input with int8
// filter and an int64 or int32 bias or none: its int16 overloads, which
// neither check nor apply zero points; only the activation range uses the
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

#include "dmo/ops/eval/conv_arithmetic.h"
#include "dmo/ops/eval/conv_loops.h"
#include "conv_like_kernel.h"
#include "conv_operand_types.h"
#include "conv_quantization.h"
#include "dmo/ops/kernels.h"
#include "dmo/ops/padding.h"
#include "dmo/ops/walk_order.h"

namespace dmo {
namespace {

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

struct ConvLoops {
  template <class Arithmetic, class Memory>
  static void run(const ConvGeometry& g, const Arithmetic& arithmetic, const KernelIO& io, Memory& mem) {
    conv_loops(g, arithmetic, io, mem);
  }
};

// int16 input ("16x8"): the same loop nest with Conv16x8Arithmetic, whose
// accumulator is int32 for an int32 bias, or without a bias when the
// options' quantized_bias_type says INT32, and int64 otherwise (ConvEval's
// requires_int32_accum).
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
  k.int64_bias = ctx.has_input(2) ? ctx.input(2).type() == DataType::kInt64
                                  : params.quantized_bias_type != DataType::kInt32;
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
  auto device = std::make_shared<DeviceKernel>();
  device->loops = DeviceLoops::kConv;
  device->conv = k.g;
  device->requantization = device_requantization(k.requantization);
  device->float_range = k.float_range;
  device->type = ctx.input(0).type();
  PreparedKernel p = PreparedKernel::of(std::move(k));
  // int8 (dmo's device kernels), uint8 and float32 (the shared nest) run on devices.
  if (device->type == DataType::kInt8 || device->type == DataType::kUInt8 || device->type == DataType::kFloat32) {
    p.device = std::move(device);
  }
  return p;
}

}  // namespace dmo

// DEPTHWISE_CONV_2D, mirroring TFLM's reference_ops::DepthwiseConv (float,
// uint8) and reference_integer_ops::DepthwiseConvPerChannel (int8): NHWC
// input, filter [1, KH, KW, IC * M], optional bias, in their loop order (batch, out y, out x, in channel, multiplier, then
// filter y, filter x). Output channel = in channel * M + m. Taps that fall in
// the padding are skipped, not loaded.
#include <fmt/format.h>

#include <type_traits>
#include <variant>

#include "dmo/ops/eval/conv_arithmetic.h"
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
  auto device = std::make_shared<DeviceKernel>();
  device->loops = DeviceLoops::kDepthwiseConv;
  device->depthwise = k.g;
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

// DEPTHWISE_CONV_2D in the cmsis-nn families, as TFLM's
// kernels/cmsis_nn/depthwise_conv.cc (tensorflow/tflite-micro
// 0cc6f983266d1bd6f5d66f485c546e8cc80ad6a2) runs it:
//  - float32: reference_ops::DepthwiseConv, TFLM's reference kernel;
//  - int8 with int8 filters: Prepare requests
//    arm_depthwise_conv_wrapper_s8_get_buffer_size bytes of scratch
//    (arm_depthwise_conv_get_buffer_sizes_s8.c, CMSIS-NN
//    edececa2171ed2d0cb7d3c202aaac36b64aa6be1), EvalQuantizedPerChannel calls
//    arm_depthwise_conv_wrapper_s8 (504bc1db6149f642ca8310b2be7f7e917c5a9458,
//    V.2.2.0), which picks
//      * arm_depthwise_conv_3x3_s8 for multiplier 1, one batch, no dilation,
//        a 3x3 filter and padding at most 1;
//      * arm_depthwise_conv_s8_opt for the other multiplier-1, one-batch,
//        undilated cases: its im2col path with ARM_MATH_DSP, and without it
//        arm_depthwise_conv_s8, whose generic path then runs;
//      * arm_depthwise_conv_s8 otherwise: depthwise_conv_s8_mult_4 for a
//        multiplier divisible by 4 (one batch, no dilation), else
//        depthwise_conv_s8_generic.
//    The loop nests are in depthwise_s8_kernels.h.
//  - int16 activations with int8 filters: no scratch; EvalQuantizedPerChannel16x8
//    calls arm_depthwise_conv_s16 (depthwise_s16_kernel.h). dmo's reference
//    depthwise kernel has no int16, so this family runs int16 models the
//    reference family refuses.
// Not mirrored: int4 filters (arm_depthwise_conv_wrapper_s4), which dmo's
// reference kernel does not read either; they get its error. uint8, which
// the glue refuses, is refused here too.
#include <fmt/format.h>

#include <variant>

#include "../conv2d/conv_operand_types.h"
#include "../conv2d/conv_quantization.h"
#include "../depthwise_conv2d/depthwise_geometry.h"
#include "cmsis_nn_kernels.h"
#include "depthwise_s16_kernel.h"
#include "depthwise_s8_kernels.h"
#include "dmo/ops/kernels.h"
#include "dmo/ops/padding.h"

namespace dmo {
namespace {

using cmsis_nn::DepthwiseShape;

// The reference prepare's shape checks and messages (it runs them for int8
// and float ops before this; int16 ones meet them only here), in the
// CMSIS-NN kernels' terms.
DepthwiseShape depthwise_shape(const OpContext& ctx, const DepthwiseConv2DParams& params) {
  const DepthwiseGeometry g = depthwise_geometry(ctx, params);
  DepthwiseShape s;
  s.batches = g.batches;
  s.input_height = g.input_height;
  s.input_width = g.input_width;
  s.input_channels = g.input_depth;
  s.filter_height = g.filter_height;
  s.filter_width = g.filter_width;
  s.output_height = g.output_height;
  s.output_width = g.output_width;
  s.output_channels = g.output_depth;
  // The glue passes the option's multiplier; a converter's 0 would send
  // CMSIS-NN into an endless loop, so it follows from the shapes, as in
  // dmo's reference kernel.
  s.channel_multiplier = g.depth_multiplier;
  s.stride_height = g.stride_height;
  s.stride_width = g.stride_width;
  s.dilation_height = g.dilation_height;
  s.dilation_width = g.dilation_width;
  s.pad_height = g.pad_height;
  s.pad_width = g.pad_width;
  return s;
}

// The wrapper's first test: multiplier 1, one batch, no dilation.
bool takes_multiplier_one_paths(const DepthwiseShape& s) {
  return s.channel_multiplier == 1 && s.batches == 1 && s.dilation_height == 1 && s.dilation_width == 1;
}

bool takes_3x3_path(const DepthwiseShape& s) {
  return takes_multiplier_one_paths(s) && s.filter_height == 3 && s.filter_width == 3 && s.pad_height <= 1 &&
         s.pad_width <= 1;
}

// arm_depthwise_conv_3x3_s8 always reads the window's middle column and
// the rows and left column it does not skip; an output larger than the
// input allows would send those reads outside the input.
void require_3x3_reads_inside(const OpContext& ctx, const DepthwiseShape& s) {
  const int64_t last_middle_column = int64_t{s.output_width - 1} * s.stride_width - s.pad_width + 1;
  ctx.require(s.output_width == 0 || last_middle_column < s.input_width,
              fmt::format("output width {} needs input column {} of {}: arm_depthwise_conv_3x3_s8 would read "
                          "outside the input",
                          s.output_width, last_middle_column, s.input_width));
}

const char* path_suffix(KernelFamily family) { return family == KernelFamily::kCmsisNnDsp ? " (DSP)" : " (portable)"; }

template <class Kernel>
PreparedKernel prepared(Kernel kernel, const std::string& implementation, std::vector<KernelScratch> scratch = {}) {
  PreparedKernel p = PreparedKernel::of(std::move(kernel));
  p.implementation = implementation;
  p.scratch = std::move(scratch);
  return p;
}

template <class Kernel>
Kernel with_common(const cmsis_nn::DepthwiseS8Common& common) {
  Kernel k;
  static_cast<cmsis_nn::DepthwiseS8Common&>(k) = common;
  return k;
}

// EvalQuantizedPerChannel16x8: int16 input and output with zero point 0
// (the glue's Prepare checks it), int8 filter, int64 bias.
PreparedKernel prepare_int16(const OpContext& ctx) {
  const auto* params = std::get_if<DepthwiseConv2DParams>(&ctx.op->params);
  ctx.require(params != nullptr, "missing DEPTHWISE_CONV_2D parameters");
  const DataType filter = ctx.input(1).type();
  ctx.require(
      filter == DataType::kInt8,
      fmt::format("filter type {} with INT16 input is not supported; the filter must be INT8", data_type_name(filter)));
  if (ctx.has_input(2)) {
    const DataType bias = ctx.input(2).type();
    ctx.require(
        bias == DataType::kInt64,
        fmt::format("bias type {} with INT16 input is not supported; the bias must be INT64", data_type_name(bias)));
  }
  const DataType output = ctx.output(0).type();
  ctx.require(output == DataType::kInt16,
              fmt::format("output type {} with INT16 input is not supported; the output must be INT16",
                          data_type_name(output)));
  cmsis_nn::DepthwiseConvS16 k;
  k.s = depthwise_shape(ctx, *params);
  k.requantization =
      per_channel_requantization(ctx, params->activation, k.s.output_channels, /*quantized_dimension=*/3);
  ctx.require(k.requantization.input_offset == 0 && k.requantization.output_offset == 0,
              "int16 input and output must have zero point 0");
  for (const QuantizedMultiplier& m : k.requantization.multipliers) {
    // The 64-bit requantization shifts right by 15 - shift bits.
    ctx.require(m.shift >= -31 && m.shift < 8,
                fmt::format("requantization shift {} is outside the int16 kernel's range -31..7", m.shift));
  }
  return prepared(std::move(k), std::string("arm_depthwise_conv_s16") + path_suffix(ctx.family));
}

}  // namespace

std::optional<PreparedKernel> prepare_cmsis_nn_depthwise_conv2d(const OpContext& ctx) {
  require_conv_operand_counts(ctx, "filter");
  if (ctx.input(0).type() == DataType::kInt16) return prepare_int16(ctx);
  // The reference prepare's checks and messages for the other types.
  (void)prepare_depthwise_conv2d(ctx);
  const DataType type = ctx.input(0).type();
  if (type == DataType::kFloat32) return std::nullopt;
  ctx.require(
      type == DataType::kInt8,
      fmt::format("input type {} is not supported by TFLM's CMSIS-NN depthwise conv; supported: FLOAT32, INT8, INT16",
                  data_type_name(type)));

  const auto& params = std::get<DepthwiseConv2DParams>(ctx.op->params);
  cmsis_nn::DepthwiseS8Common common;
  common.s = depthwise_shape(ctx, params);
  common.requantization =
      per_channel_requantization(ctx, params.activation, common.s.output_channels, /*quantized_dimension=*/3);
  const DepthwiseShape& s = common.s;
  const char* suffix = path_suffix(ctx.family);

  if (takes_3x3_path(s)) {
    require_3x3_reads_inside(ctx, s);
    return prepared(with_common<cmsis_nn::DepthwiseConv3x3S8>(common),
                    std::string("arm_depthwise_conv_3x3_s8") + suffix);
  }
  if (takes_multiplier_one_paths(s)) {
    if (ctx.family == KernelFamily::kCmsisNnDsp) {
      // arm_depthwise_conv_s8_opt_get_buffer_size with ARM_MATH_DSP: one
      // int16 per input channel and filter tap.
      const int64_t bytes = int64_t{s.input_channels} * s.filter_width * s.filter_height * 2;
      return prepared(with_common<cmsis_nn::DepthwiseConvOptS8Dsp>(common), "arm_depthwise_conv_s8_opt (DSP)",
                      {KernelScratch{bytes, "arm_depthwise_conv_s8_opt: one output pixel's input window as int16"}});
    }
    return prepared(with_common<cmsis_nn::DepthwiseConvS8Generic>(common),
                    "arm_depthwise_conv_s8_opt -> arm_depthwise_conv_s8 generic (portable)");
  }
  if (s.channel_multiplier % 4 == 0 && s.batches == 1 && s.dilation_height == 1 && s.dilation_width == 1) {
    return prepared(with_common<cmsis_nn::DepthwiseConvS8Mult4>(common),
                    std::string("arm_depthwise_conv_s8 multiplier-4") + suffix);
  }
  return prepared(with_common<cmsis_nn::DepthwiseConvS8Generic>(common),
                  std::string("arm_depthwise_conv_s8 generic") + suffix);
}

}  // namespace dmo

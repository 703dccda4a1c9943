// LEAKY_RELU, mirroring TFLM's leaky_relu.cc / leaky_relu_common.cc
// (LeakyReluEval, CalculateOpDataLeakyRelu) and TFLite's
// reference_ops::LeakyRelu (float) and QuantizeLeakyRelu (int8, int16).
//  - FLOAT32: x > 0 ? x : x * alpha.
//  - INT8, INT16: x - input_zero_point, scaled by one of two multipliers
//    (identity: input_scale / output_scale for values >= 0; alpha:
//    input_scale * alpha / output_scale below 0, both computed in float as
//    TFLM does), plus the output zero point, saturated to the type.
// The tensor is walked flat: element i loaded, then stored; the arithmetic
// is ops/eval/activation_arithmetic.h's.
#include <cstdint>
#include <variant>

#include <fmt/format.h>

#include "../elementwise.h"
#include "../instance_kernel.h"
#include "dmo/ops/eval/activation_arithmetic.h"
#include "dmo/ops/fixed_point.h"
#include "dmo/ops/kernels.h"

namespace dmo {
namespace {

template <typename T>
PreparedKernel prepare_quantized_leaky_relu(const OpContext& ctx, float alpha) {
  const AffineQuantization in = affine_quantization(ctx, ctx.input(0), "input");
  const AffineQuantization out = affine_quantization(ctx, ctx.output(0), "output");
  QuantizedLeakyRelu<T> r;
  r.input_zero_point = in.zero_point;
  r.output_zero_point = out.zero_point;
  r.alpha = quantize_multiplier(static_cast<double>(in.scale * alpha / out.scale));
  r.identity = quantize_multiplier(static_cast<double>(in.scale / out.scale));
  return map_elements_instance<T, T>(r, fmt::format("QuantizedLeakyRelu<{}>", device_type_name<T>()),
                                     ctx.output(0).elements(), ctx.input(0).type());
}

}  // namespace

PreparedKernel prepare_leaky_relu(const OpContext& ctx) {
  require_operand_counts(ctx, 1, 1);
  require_output_type_matches_input(ctx);
  require_same_element_count(ctx);
  const auto* params = std::get_if<LeakyReluParams>(&ctx.op->params);
  const float alpha = params ? params->alpha : 0.0f;
  const DataType type = ctx.input(0).type();
  switch (type) {
    case DataType::kFloat32:
      return map_elements_instance<float, float>(FloatLeakyRelu{alpha}, "FloatLeakyRelu", ctx.output(0).elements(),
                                                 type);
    case DataType::kInt8: return prepare_quantized_leaky_relu<int8_t>(ctx, alpha);
    case DataType::kInt16: return prepare_quantized_leaky_relu<int16_t>(ctx, alpha);
    default: fail_unsupported_type(ctx, "input", type, "FLOAT32, INT8, INT16");
  }
}

}  // namespace dmo

// SQRT, RSQRT, EXP and LOG, mirroring TFLM's elementwise.cc (SqrtEval,
// LogEval, RsqrtEval with EvalImpl / EvalImplQuantized and
// RsqrtEvalQuantized, PrepareAbsRsqrt) and exp.cc (ExpEval,
// reference_ops::Exp): one flat loop, element i loaded, then stored.
//  - FLOAT32 (all four): std::sqrt, 1.f / std::sqrt, std::exp, std::log.
//  - RSQRT INT8, INT16 (zero points 0): x - input_zero_point; 0 gives the
//    type's maximum; otherwise 1 / sqrt of it as a fixed-point multiplier
//    (inv_sqrt.h) applied to 1 << 20, then rescaled by
//    1 / (sqrt(input_scale) * output_scale) and 2^-20, plus the output zero
//    point, saturated. TFLM fails the invoke on a value below the input
//    zero point; dmo's eval cannot fail and computes it as TFLite's
//    inverse square root does inputs <= 1.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "../elementwise.h"
#include "dmo/ops/fixed_point.h"
#include "dmo/ops/kernels.h"
#include "inv_sqrt.h"

namespace dmo {
namespace {

void require_float_unary(const OpContext& ctx) {
  require_operand_counts(ctx, 1, 1);
  require_output_type_matches_input(ctx);
  require_same_element_count(ctx);
  const DataType type = ctx.input(0).type();
  if (type != DataType::kFloat32) fail_unsupported_type(ctx, "input", type, "FLOAT32");
}

struct RsqrtRequantization {
  int32_t input_offset = 0, output_offset = 0;
  QuantizedMultiplier multiplier;
};

template <typename T>
PreparedKernel prepare_quantized_rsqrt(const OpContext& ctx) {
  const AffineQuantization in = affine_quantization(ctx, ctx.input(0), "input");
  const AffineQuantization out = affine_quantization(ctx, ctx.output(0), "output");
  if constexpr (std::is_same_v<T, int16_t>) {
    ctx.require(in.zero_point == 0 && out.zero_point == 0, "INT16 input and output must have zero point 0");
  }
  RsqrtRequantization r;
  r.input_offset = in.zero_point;
  r.output_offset = out.zero_point;
  // SetRsqrtOutputMultiplier: the square root and product in float, as TFLM does.
  const float scale_product = std::sqrt(in.scale) * out.scale;
  r.multiplier = quantize_multiplier(1.0 / static_cast<double>(scale_product));
  return map_elements_kernel<T, T>([r](T x) {
    constexpr int kShift = 20;  // keeps 1 / sqrt(value) an integer in between
    const int32_t value = static_cast<int32_t>(x) - r.input_offset;
    if (value == 0) return std::numeric_limits<T>::max();
    QuantizedMultiplier inv_sqrt = inverse_sqrt_multiplier(value);
    inv_sqrt.shift += kShift;
    const int32_t scaled = multiply_by_quantized_multiplier(1, inv_sqrt);
    const int32_t result =
        multiply_by_quantized_multiplier(scaled, {r.multiplier.multiplier, r.multiplier.shift - kShift}) +
        r.output_offset;
    return static_cast<T>(
        std::clamp<int32_t>(result, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
  });
}

}  // namespace

PreparedKernel prepare_sqrt(const OpContext& ctx) {
  require_float_unary(ctx);
  return map_elements_kernel<float, float>([](float x) { return std::sqrt(x); });
}

PreparedKernel prepare_exp(const OpContext& ctx) {
  require_float_unary(ctx);
  return map_elements_kernel<float, float>([](float x) { return std::exp(x); });
}

PreparedKernel prepare_log(const OpContext& ctx) {
  require_float_unary(ctx);
  return map_elements_kernel<float, float>([](float x) { return std::log(x); });
}

PreparedKernel prepare_rsqrt(const OpContext& ctx) {
  require_operand_counts(ctx, 1, 1);
  require_output_type_matches_input(ctx);
  require_same_element_count(ctx);
  const DataType type = ctx.input(0).type();
  switch (type) {
    case DataType::kFloat32:
      return map_elements_kernel<float, float>([](float x) { return 1.f / std::sqrt(x); });
    case DataType::kInt8: return prepare_quantized_rsqrt<int8_t>(ctx);
    case DataType::kInt16: return prepare_quantized_rsqrt<int16_t>(ctx);
    default: fail_unsupported_type(ctx, "input", type, "FLOAT32, INT8, INT16");
  }
}

}  // namespace dmo

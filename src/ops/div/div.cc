// DIV, mirroring TFLM's div.cc (DivEval, EvalDiv, EvalQuantized) and
// TFLite's reference_ops::Div / BroadcastDivSlow (float, int32) and
// DivElementwise / BroadcastDivSlowQuantized (int8). All operands have one
// type. Same-shape inputs take the flat loop, others the broadcast loop;
// both visit the output in row-major order, loading a then b right before
// storing the quotient (ops/broadcast.h; TFLM's newer broadcast loop loads a
// broadcast operand once per row instead, which only reads earlier).
//  - FLOAT32: a / b, clamped to the fused activation.
//  - INT32 (unquantized): C++ division truncating toward zero, clamped. C++
//    leaves x / 0 and INT32_MIN / -1 undefined; dmo gives what Cortex-M's
//    SDIV gives: 0 and INT32_MIN.
//  - INT8: the quotient of the offset values from a fixed-point reciprocal of
//    the divisor, then requantized by input1_scale / (input2_scale *
//    output_scale) (computed in float, as TFLM does).
#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>

#include <fmt/format.h>

#include "../broadcast.h"
#include "../elementwise.h"
#include "dmo/ops/eval/fixed_point_math.h"
#include "dmo/ops/activation_range.h"
#include "dmo/ops/fixed_point.h"
#include "dmo/ops/kernels.h"

namespace dmo {
namespace {

int32_t sdiv(int32_t a, int32_t b) {
  if (b == 0) return 0;
  if (a == std::numeric_limits<int32_t>::min() && b == -1) return a;
  return a / b;
}

// TFLite's CountLeadingSignBits: redundant sign bits, 31 for 0.
int count_leading_sign_bits(int32_t x) {
  return std::countl_zero(static_cast<uint32_t>(x >= 0 ? x : ~x)) - 1;
}

struct DivRequantization {
  int32_t input1_offset = 0, input2_offset = 0, output_offset = 0;
  QuantizedMultiplier multiplier;
  QuantizedRange range{0, 0};

  int32_t divide(int32_t a, int32_t b) const {
    int32_t dividend = input1_offset + a;
    int32_t divisor = input2_offset + b;
    if (divisor < 0) {
      dividend = -dividend;
      divisor = -divisor;
    }
    // TFLite's GetReciprocal(divisor, 31): the divisor normalised to [1, 2)
    // and 1 / that in Q0. A zero divisor (undefined there) shifts by 32,
    // which an ARM build computes as 0.
    const int headroom_plus_one = std::countl_zero(static_cast<uint32_t>(divisor));
    const int reciprocal_shift = 31 - headroom_plus_one;
    const uint32_t normalised = headroom_plus_one >= 32 ? 0u : static_cast<uint32_t>(divisor) << headroom_plus_one;
    const auto normalised_minus_one = static_cast<int32_t>(normalised - (uint32_t{1} << 31));
    const int32_t reciprocal = fixed::one_over_one_plus_x_for_x_in_0_1(fixed::Q<0>{normalised_minus_one}).raw;
    // MultiplyByQuantizedMultiplierGreaterThanOne with the dividend's headroom.
    const int headroom = count_leading_sign_bits(dividend);
    const auto scaled_dividend = static_cast<int32_t>(static_cast<uint32_t>(dividend) << headroom);
    const int32_t unscaled_quotient = saturating_rounding_doubling_high_mul(scaled_dividend, reciprocal);
    // MultiplyByQuantizedMultiplierSmallerThanOneExp: prepare keeps the total
    // shift <= 0. A right shift of 32 or more (undefined in TFLite) leaves
    // less than one half, rounded to 0.
    const int right_shift = reciprocal_shift + headroom - multiplier.shift;
    const int32_t scaled = saturating_rounding_doubling_high_mul(unscaled_quotient, multiplier.multiplier);
    const int32_t result = output_offset + (right_shift >= 32 ? 0 : rounding_divide_by_pot(scaled, right_shift));
    return clamp_to(result, range.min, range.max);
  }
};

DivRequantization div_requantization(const OpContext& ctx) {
  const AffineQuantization in1 = affine_quantization(ctx, ctx.input(0), "input 0");
  const AffineQuantization in2 = affine_quantization(ctx, ctx.input(1), "input 1");
  const AffineQuantization out = affine_quantization(ctx, ctx.output(0), "output");
  DivRequantization r;
  r.input1_offset = -in1.zero_point;
  r.input2_offset = -in2.zero_point;
  r.output_offset = out.zero_point;
  r.multiplier = quantize_multiplier(static_cast<double>(in1.scale / (in2.scale * out.scale)));
  r.range = quantized_activation_range(elementwise_activation(ctx), *ctx.output(0).tensor);
  // An int8 dividend has at least 23 redundant sign bits and the reciprocal
  // shift is >= 0, so a multiplier shift up to 23 keeps the final shift a
  // right shift, which is all TFLite's arithmetic defines.
  ctx.require(r.multiplier.shift <= 23,
              fmt::format("scales give a requantization multiplier of 2^{} or more, beyond TFLite's DIV arithmetic",
                          r.multiplier.shift - 1));
  return r;
}

}  // namespace

PreparedKernel prepare_div(const OpContext& ctx) {
  const DataType type = require_two_inputs_of_one_type(ctx);
  require_output_type_matches_input(ctx);
  const Activation activation = elementwise_activation(ctx);
  switch (type) {
    case DataType::kFloat32: {
      const FloatRange r = float_activation_range(activation);
      return broadcast_binary_kernel<float>(ctx,
                                            [r](float a, float b) { return std::min(std::max(a / b, r.min), r.max); });
    }
    case DataType::kInt32: {
      for (size_t i = 0; i < 2; ++i) {
        ctx.require(ctx.input(i).tensor->quantization.scale.empty(),
                    fmt::format("INT32 input {} is quantized; only unquantized INT32 is supported", i));
      }
      const QuantizedRange r = int32_activation_range(activation);
      return broadcast_binary_kernel<int32_t>(
          ctx, [r](int32_t a, int32_t b) { return std::min(std::max(sdiv(a, b), r.min), r.max); });
    }
    case DataType::kInt8: {
      const DivRequantization q = div_requantization(ctx);
      return broadcast_binary_kernel<int8_t>(ctx,
                                             [q](int8_t a, int8_t b) { return static_cast<int8_t>(q.divide(a, b)); });
    }
    default:
      fail_unsupported_type(ctx, "input", type, "FLOAT32, INT32, INT8");
  }
}

}  // namespace dmo

// HARD_SWISH: x * relu6(x + 3) / 6, mirroring TFLM's reference_ops::HardSwish
// (float, int8) and TFLite's (uint8).
//  - FLOAT32: TFLite's reference, in float.
//  - INT8 (TFLite Micro) and UINT8 (TFLite): reference_ops::HardSwish in
//    16-bit fixed point: the input on a 2^7 finer scale, a "relu-ish" factor
//    in [0, 1] from rescaling [-3, 3], multiplied together and shifted to
//    the output scale. Multipliers are 16-bit (HardSwishPrepare).
// Both walk the tensor flat as TFLM does: element i loaded, then stored.
#include <algorithm>
#include <cstdint>
#include <limits>

#include <fmt/format.h>

#include "../elementwise.h"
#include "dmo/ops/fixed_point.h"
#include "dmo/ops/kernels.h"

namespace dmo {
namespace {

struct HardSwishParams {
  int32_t input_zero_point = 0, output_zero_point = 0;
  int16_t reluish_multiplier = 0;
  int reluish_exponent = 0;
  int16_t output_multiplier = 0;
  int output_exponent = 0;
};

// The upper 16 bits of a Q31 multiplier, rounded, saturating at the top.
int16_t to_int16_multiplier(int32_t multiplier) {
  constexpr int32_t kRoundingOffset = 1 << 15;
  if (multiplier >= std::numeric_limits<int32_t>::max() - kRoundingOffset) return std::numeric_limits<int16_t>::max();
  return static_cast<int16_t>((multiplier + kRoundingOffset) >> 16);
}

HardSwishParams hard_swish_params(const OpContext& ctx) {
  const AffineQuantization in = affine_quantization(ctx, ctx.input(0), "input");
  const AffineQuantization out = affine_quantization(ctx, ctx.output(0), "output");
  HardSwishParams p;
  p.input_zero_point = in.zero_point;
  p.output_zero_point = out.zero_point;
  // The scales are divided in float, as TFLite does.
  const float hires_input_scale = (1.0f / 128.0f) * in.scale;
  const float reluish_scale = 3.0f / 32768.0f;
  const QuantizedMultiplier output = quantize_multiplier(static_cast<double>(hires_input_scale / out.scale));
  ctx.require(output.shift <= 0, fmt::format("output scale {} is too small for input scale {}", out.scale, in.scale));
  p.output_multiplier = to_int16_multiplier(output.multiplier);
  p.output_exponent = output.shift;
  const QuantizedMultiplier reluish = quantize_multiplier(static_cast<double>(hires_input_scale / reluish_scale));
  p.reluish_multiplier = to_int16_multiplier(reluish.multiplier);
  p.reluish_exponent = reluish.shift;
  return p;
}

// gemmlowp's 16-bit SaturatingRoundingDoublingHighMul.
int16_t rounding_doubling_high_mul16(int16_t a, int16_t b) {
  if (a == b && a == std::numeric_limits<int16_t>::min()) return std::numeric_limits<int16_t>::max();
  const int32_t ab = int32_t{a} * int32_t{b};
  const int32_t nudge = ab >= 0 ? (1 << 14) : (1 - (1 << 14));
  return static_cast<int16_t>((ab + nudge) / (1 << 15));
}

// The same, truncating instead of rounding (SaturatingDoublingHighMul).
int16_t doubling_high_mul16(int16_t a, int16_t b) {
  if (a == b && a == std::numeric_limits<int16_t>::min()) return std::numeric_limits<int16_t>::max();
  return static_cast<int16_t>((int32_t{a} * int32_t{b}) / (1 << 15));
}

int16_t saturating_left_shift16(int16_t value, int amount) {
  const int64_t result = int64_t{value} * (int64_t{1} << amount);
  return static_cast<int16_t>(std::clamp<int64_t>(result, std::numeric_limits<int16_t>::min(),
                                                  std::numeric_limits<int16_t>::max()));
}

// gemmlowp's RoundingDivideByPOT on int16 values.
int16_t rounding_divide_by_pot16(int16_t x, int exponent) {
  const auto mask = static_cast<int16_t>((int64_t{1} << exponent) - 1);
  const auto remainder = static_cast<int16_t>(x & mask);
  const auto threshold = static_cast<int16_t>((mask >> 1) + (x < 0 ? 1 : 0));
  return static_cast<int16_t>((x >> exponent) + (remainder > threshold ? 1 : 0));
}

template <typename T>
T hard_swish_quantized(const HardSwishParams& p, T x) {
  const auto input_value = static_cast<int16_t>(x - p.input_zero_point);
  const auto input_value_on_hires_input_scale = static_cast<int16_t>(input_value * (1 << 7));
  const int16_t input_value_on_preshift_output_scale =
      rounding_doubling_high_mul16(input_value_on_hires_input_scale, p.output_multiplier);
  // The relu-ish factor: the input on a scale where 3.0 is 32768, saturated.
  int16_t reluish_value = input_value_on_hires_input_scale;
  if (p.reluish_exponent > 0) reluish_value = saturating_left_shift16(reluish_value, p.reluish_exponent - 1);
  reluish_value = rounding_doubling_high_mul16(reluish_value, p.reluish_multiplier);
  if (p.reluish_exponent > 0) reluish_value = saturating_left_shift16(reluish_value, 1);
  if (p.reluish_exponent < 0) reluish_value = rounding_divide_by_pot16(reluish_value, -p.reluish_exponent);
  // From [-1, 1] to [0, 1].
  reluish_value = static_cast<int16_t>((reluish_value + (1 << 15)) >> 1);
  const int16_t preshift_output_value = doubling_high_mul16(reluish_value, input_value_on_preshift_output_scale);
  auto output_value = rounding_divide_by_pot16(preshift_output_value, -p.output_exponent);
  output_value = static_cast<int16_t>(output_value + p.output_zero_point);
  output_value = std::min<int16_t>(output_value, std::numeric_limits<T>::max());
  output_value = std::max<int16_t>(output_value, std::numeric_limits<T>::min());
  return static_cast<T>(output_value);
}

}  // namespace

PreparedKernel prepare_hard_swish(const OpContext& ctx) {
  require_operand_counts(ctx, 1, 1);
  require_output_type_matches_input(ctx);
  require_same_element_count(ctx);
  const DataType type = ctx.input(0).type();
  switch (type) {
    case DataType::kFloat32:
      return map_elements_kernel<float, float>(
          [](float in) { return in * std::min(6.0f, std::max(0.0f, in + 3)) / 6; });
    case DataType::kInt8: {
      const HardSwishParams p = hard_swish_params(ctx);
      return map_elements_kernel<int8_t, int8_t>([p](int8_t x) { return hard_swish_quantized(p, x); });
    }
    case DataType::kUInt8: {
      const HardSwishParams p = hard_swish_params(ctx);
      return map_elements_kernel<uint8_t, uint8_t>([p](uint8_t x) { return hard_swish_quantized(p, x); });
    }
    default: fail_unsupported_type(ctx, "input", type, "FLOAT32, INT8, UINT8");
  }
}

}  // namespace dmo

// HARD_SWISH's arithmetic per element, x * relu6(x + 3) / 6, as TFLite's
// reference_ops::HardSwish computes it (src/ops/activations/hard_swish.cc
// prepares it):
//  - QuantizedHardSwish (int8 as TFLite Micro, uint8 as TFLite): in 16-bit
//    fixed point, the input on a 2^7 finer scale, a "relu-ish" factor in
//    [0, 1] from rescaling [-3, 3], multiplied together and shifted to the
//    output scale, with 16-bit multipliers;
//  - FloatHardSwish: in float.
// Freestanding: shared by the host kernels and generated code.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

namespace dmo {

struct HardSwishParams {
  int32_t input_zero_point = 0, output_zero_point = 0;
  int16_t reluish_multiplier = 0;
  int reluish_exponent = 0;
  int16_t output_multiplier = 0;
  int output_exponent = 0;

  template <class F>
  void each_field(F&& f) const {
    f(input_zero_point), f(output_zero_point), f(reluish_multiplier), f(reluish_exponent), f(output_multiplier),
        f(output_exponent);
  }
};

// gemmlowp's 16-bit SaturatingRoundingDoublingHighMul.
inline int16_t rounding_doubling_high_mul16(int16_t a, int16_t b) {
  if (a == b && a == std::numeric_limits<int16_t>::min()) return std::numeric_limits<int16_t>::max();
  const int32_t ab = int32_t{a} * int32_t{b};
  const int32_t nudge = ab >= 0 ? (1 << 14) : (1 - (1 << 14));
  return static_cast<int16_t>((ab + nudge) / (1 << 15));
}

// The same, truncating instead of rounding (SaturatingDoublingHighMul).
inline int16_t doubling_high_mul16(int16_t a, int16_t b) {
  if (a == b && a == std::numeric_limits<int16_t>::min()) return std::numeric_limits<int16_t>::max();
  return static_cast<int16_t>((int32_t{a} * int32_t{b}) / (1 << 15));
}

inline int16_t saturating_left_shift16(int16_t value, int amount) {
  const int64_t result = int64_t{value} * (int64_t{1} << amount);
  return static_cast<int16_t>(std::clamp<int64_t>(result, std::numeric_limits<int16_t>::min(),
                                                  std::numeric_limits<int16_t>::max()));
}

// gemmlowp's RoundingDivideByPOT on int16 values.
inline int16_t rounding_divide_by_pot16(int16_t x, int exponent) {
  const auto mask = static_cast<int16_t>((int64_t{1} << exponent) - 1);
  const auto remainder = static_cast<int16_t>(x & mask);
  const auto threshold = static_cast<int16_t>((mask >> 1) + (x < 0 ? 1 : 0));
  return static_cast<int16_t>((x >> exponent) + (remainder > threshold ? 1 : 0));
}

template <typename T>
struct QuantizedHardSwish {
  HardSwishParams p;

  T operator()(T x) const {
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
  template <class F>
  void each_field(F&& f) const {
    f(p);
  }
};

struct FloatHardSwish {
  float operator()(float in) const { return in * std::min(6.0f, std::max(0.0f, in + 3)) / 6; }
  template <class F>
  void each_field(F&&) const {}
};

}  // namespace dmo

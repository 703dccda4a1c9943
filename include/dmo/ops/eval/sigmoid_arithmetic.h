// LOGISTIC's and TANH's arithmetic per element, as TFLM computes it:
//  - quantized input: the difference from the zero point goes to a Q4.27
//    number through the multiplier input_scale * 2^27 (TFLite Micro's
//    CalculateArithmeticOpDataLogistic, TanhPrepare); differences beyond
//    the radius saturate the output without computing; otherwise the
//    fixed-point logistic or tanh (reference_integer_ops::Logistic, Tanh)
//    in units of 1/256 (logistic) or 1/128 (tanh), plus the output's zero
//    point (int8: -128 and 0; uint8: 0 and 128, TFLite's uint8 kernels);
//  - FloatLogistic: TFLite's reference, 1 above 16.619..., exp(x) below -9,
//    else 1 / (1 + exp(-x)), with exp_float (the same bits everywhere).
// Freestanding: shared by the host kernels and generated code.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#include "dmo/ops/eval/exp_float.h"
#include "dmo/ops/eval/fixed_point_math.h"
#include "dmo/ops/fixed_point.h"

namespace dmo {

inline constexpr int kSigmoidInputIntegerBits = 4;

struct SigmoidInput {
  int32_t zero_point = 0;
  QuantizedMultiplier multiplier;
  int32_t radius = 0;

  // The input value's difference from the zero point as a Q4.27 number.
  fixed::Q<kSigmoidInputIntegerBits> rescaled(int32_t difference) const {
    return fixed::Q<kSigmoidInputIntegerBits>{multiply_by_quantized_multiplier(difference, multiplier)};
  }
  // Whether `difference` lies beyond the radius, and then the output: T's
  // lowest or highest value.
  template <typename T>
  bool saturates(int32_t difference, T& output) const {
    if (difference <= -radius) output = std::numeric_limits<T>::min();
    else if (difference >= radius) output = std::numeric_limits<T>::max();
    else return false;
    return true;
  }
  template <class F>
  void each_field(F&& f) const {
    f(zero_point), f(multiplier), f(radius);
  }
};

// T is int8_t or uint8_t.
template <typename T>
struct QuantizedLogistic {
  SigmoidInput s;

  T operator()(T x) const {
    const int32_t difference = static_cast<int32_t>(x) - s.zero_point;
    if (T saturated; s.saturates(difference, saturated)) return saturated;
    // The logistic in Q0.31 rescaled to 8 fractional bits (units of 1/256).
    const int32_t in_256ths = rounding_divide_by_pot(fixed::logistic(s.rescaled(difference)).raw, 31 - 8);
    if constexpr (std::is_same_v<T, int8_t>) {
      const int32_t v = in_256ths - 128;
      return static_cast<T>(v < -128 ? -128 : v > 127 ? 127 : v);
    } else {
      return static_cast<T>(in_256ths < 255 ? in_256ths : 255);
    }
  }
  template <class F>
  void each_field(F&& f) const {
    f(s);
  }
};

// T is int8_t or uint8_t.
template <typename T>
struct QuantizedTanh {
  SigmoidInput s;

  T operator()(T x) const {
    const int32_t difference = static_cast<int32_t>(x) - s.zero_point;
    if (T saturated; s.saturates(difference, saturated)) return saturated;
    // tanh in Q0.31 rescaled to 7 fractional bits (units of 1/128).
    const int32_t in_128ths = rounding_divide_by_pot(fixed::tanh(s.rescaled(difference)).raw, 31 - 7);
    if constexpr (std::is_same_v<T, int8_t>) {
      return static_cast<T>(in_128ths < -128 ? -128 : in_128ths > 127 ? 127 : in_128ths);
    } else {
      return static_cast<T>(in_128ths + 128 < 255 ? in_128ths + 128 : 255);
    }
  }
  template <class F>
  void each_field(F&& f) const {
    f(s);
  }
};

struct FloatLogistic {
  float operator()(float x) const {
    const float cutoff_upper = 16.619047164916992188f;
    const float cutoff_lower = -9.f;
    if (x > cutoff_upper) return 1.0f;
    if (x < cutoff_lower) return exp_float(x);
    return 1.f / (1.f + exp_float(-x));
  }
  template <class F>
  void each_field(F&&) const {}
};

}  // namespace dmo

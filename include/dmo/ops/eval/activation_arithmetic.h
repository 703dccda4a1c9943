// The arithmetic per element of the activations dmo runs element by element
// (src/ops/activations, src/ops/leaky_relu prepare it), as TFLM computes it:
//  - QuantizedLeakyRelu: TFLite's QuantizeLeakyRelu, x - input zero point
//    scaled by the identity multiplier at or above 0 and the alpha one
//    below, plus the output zero point, saturated to T;
//  - FloatLeakyRelu: x > 0 ? x : x * alpha;
//  - RequantizedClamp: TFLM's ReluQuantized (and TFLite's QuantizedReluX),
//    x - input zero point rescaled to the output, clamped to [min, max];
//  - ValueClamp: a clamp in the input's own terms, written as TFLM writes
//    Relu6Quantized and the float RELUs (x > upper, then x < lower).
// Freestanding: shared by the host kernels and generated code.
#pragma once

#include <cstdint>
#include <limits>

#include "dmo/ops/fixed_point.h"

namespace dmo {

template <typename T>
struct QuantizedLeakyRelu {
  int32_t input_zero_point = 0, output_zero_point = 0;
  QuantizedMultiplier identity, alpha;

  T operator()(T x) const {
    constexpr int32_t kMin = std::numeric_limits<T>::min(), kMax = std::numeric_limits<T>::max();
    const int32_t value = static_cast<int32_t>(x) - input_zero_point;
    const int32_t result = output_zero_point + multiply_by_quantized_multiplier(value, value >= 0 ? identity : alpha);
    return static_cast<T>(result < kMin ? kMin : result > kMax ? kMax : result);
  }
  template <class F>
  void each_field(F&& f) const {
    f(input_zero_point), f(output_zero_point), f(identity), f(alpha);
  }
};

struct FloatLeakyRelu {
  float alpha = 0.0f;

  float operator()(float x) const { return x > 0 ? x : x * alpha; }
  template <class F>
  void each_field(F&& f) const {
    f(alpha);
  }
};

template <typename T>
struct RequantizedClamp {
  int32_t input_zero_point = 0, output_zero_point = 0;
  QuantizedMultiplier multiplier;
  int32_t min = 0, max = 0;

  T operator()(T x) const {
    int32_t v = output_zero_point + multiply_by_quantized_multiplier(static_cast<int32_t>(x) - input_zero_point,
                                                                     multiplier);
    v = v < min ? min : v;
    v = v > max ? max : v;
    return static_cast<T>(v);
  }
  template <class F>
  void each_field(F&& f) const {
    f(input_zero_point), f(output_zero_point), f(multiplier), f(min), f(max);
  }
};

template <typename T>
struct ValueClamp {
  T lower{}, upper{};

  T operator()(T x) const { return x > upper ? upper : x < lower ? lower : x; }
  template <class F>
  void each_field(F&& f) const {
    f(lower), f(upper);
  }
};

}  // namespace dmo

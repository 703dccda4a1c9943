// QUANTIZE's and DEQUANTIZE's arithmetic per element, as TFLM's
// quantize_common.cc and dequantize.cc compute it (src/ops/quantize and
// src/ops/dequantize prepare it):
//  - AffineQuantize (float in): round(x / scale) in float, half away from
//    zero, plus the zero point, saturated (reference_ops::AffineQuantize);
//  - Requantize (integer in): (x - input zero point) rescaled by
//    input_scale / output_scale, plus the output zero point, saturated
//    (reference_ops::Requantize);
//  - Dequantize: scale * (x - zero point) in float.
// Freestanding: shared by the host kernels and generated code.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "dmo/ops/eval/fixed_point_math.h"
#include "dmo/ops/fixed_point.h"

namespace dmo {

// float -> int32 as x86-64's conversion does it (TFLite Micro's build):
// NaN and values out of range give INT32_MIN, where C++ leaves it undefined
// (and a Cortex-M's VCVT saturates).
inline int32_t truncate_to_int32(float x) {
  if (!(x >= -2147483648.0f && x < 2147483648.0f)) return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(x);
}

template <typename Out>
struct AffineQuantize {
  float scale = 1.0f;
  int32_t zero_point = 0;

  Out operator()(float x) const {
    constexpr int32_t kMin = std::numeric_limits<Out>::min();
    constexpr int32_t kMax = std::numeric_limits<Out>::max();
    const int32_t unclamped = fixed::wrapping_add(truncate_to_int32(std::round(x / scale)), zero_point);
    return static_cast<Out>(std::min(std::max(unclamped, kMin), kMax));
  }
};

template <typename In, typename Out>
struct Requantize {
  int32_t input_zero_point = 0, output_zero_point = 0;
  QuantizedMultiplier multiplier;  // input_scale / output_scale

  Out operator()(In x) const {
    constexpr int32_t kMin = std::numeric_limits<Out>::min();
    constexpr int32_t kMax = std::numeric_limits<Out>::max();
    const int32_t difference = fixed::wrapping_sub(static_cast<int32_t>(x), input_zero_point);
    const int32_t output =
        fixed::wrapping_add(multiply_by_quantized_multiplier(difference, multiplier), output_zero_point);
    return static_cast<Out>(std::max(std::min(output, kMax), kMin));
  }
};

template <typename In>
struct Dequantize {
  float scale = 1.0f;
  int32_t zero_point = 0;

  float operator()(In x) const { return scale * static_cast<float>(x - zero_point); }
};

}  // namespace dmo

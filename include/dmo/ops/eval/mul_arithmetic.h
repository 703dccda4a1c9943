// MUL's arithmetic on one broadcast pair of inputs, as TFLM's reference
// kernels compute it (and the CMSIS-NN ones: arm_elementwise_mul_s8/_s16
// compute the same product and rescaling): float32 a * b clamped to the
// activation range; quantized (a - za) * (b - zb) rescaled by
// input1_scale * input2_scale / output_scale, clamped likewise
// (src/ops/mul/mul_requantization.h prepares it). Freestanding: shared by
// the host kernels and generated code.
#pragma once

#include <algorithm>
#include <cstdint>

#include "dmo/ops/eval/value_range.h"
#include "dmo/ops/fixed_point.h"

namespace dmo {

struct MulRequantization {
  int32_t input1_offset = 0, input2_offset = 0, output_offset = 0;
  QuantizedMultiplier multiplier;
  QuantizedRange range{0, 0};

  int32_t multiply(int32_t a, int32_t b) const {
    const int32_t product = (input1_offset + a) * (input2_offset + b);
    return std::min(std::max(output_offset + multiply_by_quantized_multiplier(product, multiplier), range.min),
                    range.max);
  }
};

struct FloatMul {
  FloatRange range;
  float operator()(float a, float b) const { return std::min(std::max(a * b, range.min), range.max); }
};

// Quantized MUL with operands and output of type T.
template <typename T>
struct QuantizedMul {
  MulRequantization q;
  T operator()(T a, T b) const { return static_cast<T>(q.multiply(a, b)); }
};

}  // namespace dmo

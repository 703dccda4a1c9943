// 1 / sqrt(x) of a positive int32 as a quantized multiplier, with the
// arithmetic of TFLite's GetInvSqrtQuantizedMultiplierExp (Newton-Raphson
// in gemmlowp fixed point with 3 integer bits), which the quantized RSQRT
// and L2_NORMALIZATION kernels use.
#pragma once

#include <bit>
#include <cstdint>
#include <limits>

#include "dmo/ops/eval/fixed_point_math.h"
#include "dmo/ops/fixed_point.h"

namespace dmo {

// The multiplier and its shift, the shift as a left shift (TFLite's
// reverse_shift -1); inputs <= 1 give INT32_MAX and shift 0, as TFLite
// treats 0 and 1 (and, unchecked in release builds, negative inputs).
inline QuantizedMultiplier inverse_sqrt_multiplier(int32_t input) {
  if (input <= 1) return {std::numeric_limits<int32_t>::max(), 0};
  int right_shift = 11;
  while (input >= (int32_t{1} << 29)) {
    input /= 4;
    ++right_shift;
  }
  // Normalise into [2^27, 2^29) by whole bit pairs, so the root's shift stays whole.
  const unsigned max_left_shift_bits = static_cast<unsigned>(std::countl_zero(static_cast<uint32_t>(input))) - 1;
  const unsigned left_shift_bit_pairs = max_left_shift_bits / 2 - 1;
  right_shift -= static_cast<int>(left_shift_bit_pairs);
  input <<= 2 * left_shift_bit_pairs;

  using fixed::Q;
  const Q<3> half_input{fixed::saturating_rounding_multiply_by_pot<-1>(input >> 1)};
  const Q<3> half_three{(int32_t{1} << 28) + (int32_t{1} << 27)};  // 1.5
  Q<3> x = Q<3>::one();
  for (int i = 0; i < 5; ++i) {
    const Q<3> x3 = fixed::rescale<3>(x * x * x);
    x = fixed::rescale<3>(half_three * x - half_input * x3);
  }
  const Q<0> half_sqrt_2{1518500250};  // sqrt(2) / 2
  int32_t multiplier = (x * half_sqrt_2).raw;
  if (right_shift < 0) {
    multiplier = static_cast<int32_t>(static_cast<uint32_t>(multiplier) << -right_shift);
    right_shift = 0;
  }
  return {multiplier, -right_shift};
}

}  // namespace dmo

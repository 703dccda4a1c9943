// Integer arithmetic of TFLite's quantized reference kernels, so dmo's int8
// and uint8 results match TFLite Micro bit for bit: a real multiplier is a
// Q31 mantissa and a power-of-two exponent, applied with round-half-away
// doubling high multiplication and a rounding right shift.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

namespace dmo {

struct QuantizedMultiplier {
  int32_t multiplier = 0;  // Q31 mantissa in [2^30, 2^31)
  int shift = 0;           // positive = left shift
};

// Splits `real` (>= 0) into mantissa and exponent, as TFLite does.
QuantizedMultiplier quantize_multiplier(double real);

// High 32 bits of 2*a*b, rounded half away from zero, saturating INT32_MIN^2.
inline int32_t saturating_rounding_doubling_high_mul(int32_t a, int32_t b) {
  if (a == b && a == std::numeric_limits<int32_t>::min()) return std::numeric_limits<int32_t>::max();
  int64_t ab = static_cast<int64_t>(a) * static_cast<int64_t>(b);
  int32_t nudge = ab >= 0 ? (1 << 30) : (1 - (1 << 30));
  return static_cast<int32_t>((ab + nudge) / (int64_t{1} << 31));
}

// x / 2^exponent rounded to nearest, ties away from zero.
inline int32_t rounding_divide_by_pot(int32_t x, int exponent) {
  const int32_t mask = static_cast<int32_t>((int64_t{1} << exponent) - 1);
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

inline int32_t multiply_by_quantized_multiplier(int32_t x, QuantizedMultiplier m) {
  int left = m.shift > 0 ? m.shift : 0;
  int right = m.shift > 0 ? 0 : -m.shift;
  return rounding_divide_by_pot(
      saturating_rounding_doubling_high_mul(static_cast<int32_t>(static_cast<uint32_t>(x) << left), m.multiplier),
      right);
}

// For 64-bit accumulators (int16 kernels; shift below 8): the multiplier rounded to
// 16 bits, one rounding shift, truncated to 32 bits as TFLite does.
inline int32_t multiply_by_quantized_multiplier_wide(int64_t x, QuantizedMultiplier m) {
  const int32_t reduced = m.multiplier < 0x7FFF0000 ? (m.multiplier + (1 << 15)) >> 16 : 0x7FFF;
  const int total_shift = 15 - m.shift;
  const int64_t rounded = static_cast<int64_t>(static_cast<uint64_t>(x) * static_cast<uint64_t>(int64_t{reduced})) +
                          (int64_t{1} << (total_shift - 1));
  return static_cast<int32_t>(rounded >> total_shift);
}

}  // namespace dmo

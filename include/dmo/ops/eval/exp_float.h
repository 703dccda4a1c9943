// e^x in float, the same bits on every target: the host's C library and a
// device's (newlib) round expf differently, and a float SOFTMAX must give
// on a micro-controller what dmo (and TFLM on the host) computes. The
// method is the table-driven one of current C libraries (glibc's expf):
// x / ln 2 = (k + r) / 32 with k an integer and |r| <= 1/2, so
// e^x = 2^(k/32) * 2^(r/32); 2^(k/32) is a table entry (k mod 32) with k/32's
// integer part added to its exponent, and 2^(r/32) a cubic in r; all in
// double, rounded to float once. Bit for bit glibc's expf (checked over
// every float). Needs -ffp-contract=off: a fused multiply-add changes the
// last bit. Freestanding.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>

namespace dmo {

namespace exp_float_detail {

inline constexpr int kTableBits = 5;
inline constexpr int kTableSize = 1 << kTableBits;

// 2^(i/32) rounded to double, less i << 47 in its bits, so that adding
// k << 47 for any k with k mod 32 = i gives 2^(k/32).
inline constexpr uint64_t kPowers[kTableSize] = {
    0x3ff0000000000000, 0x3fefd9b0d3158574, 0x3fefb5586cf9890f, 0x3fef9301d0125b51, 0x3fef72b83c7d517b,
    0x3fef54873168b9aa, 0x3fef387a6e756238, 0x3fef1e9df51fdee1, 0x3fef06fe0a31b715, 0x3feef1a7373aa9cb,
    0x3feedea64c123422, 0x3feece086061892d, 0x3feebfdad5362a27, 0x3feeb42b569d4f82, 0x3feeab07dd485429,
    0x3feea47eb03a5585, 0x3feea09e667f3bcd, 0x3fee9f75e8ec5f74, 0x3feea11473eb0187, 0x3feea589994cce13,
    0x3feeace5422aa0db, 0x3feeb737b0cdc5e5, 0x3feec49182a3f090, 0x3feed503b23e255d, 0x3feee89f995ad3ad,
    0x3feeff76f2fb5e47, 0x3fef199bdd85529c, 0x3fef3720dcef9069, 0x3fef5818dcfba487, 0x3fef7c97337b9b5f,
    0x3fefa4afa2a490da, 0x3fefd0765b6e4540,
};

// 32 / ln 2; adding 1.5 * 2^52 rounds a double to an integer (ties to even).
inline constexpr double kScaledInverseLn2 = 0x1.71547652b82fep+0 * kTableSize;
inline constexpr double kRoundingShift = 0x1.8p+52;
// 2^(r/32) ~= 1 + c1 r + c2 r^2 + c3 r^3, evaluated as (c3 r + c2) r^2 + (c1 r + 1).
inline constexpr double kCubic = 0x1.c6af84b912394p-5 / kTableSize / kTableSize / kTableSize;
inline constexpr double kSquare = 0x1.ebfce50fac4f3p-3 / kTableSize / kTableSize;
inline constexpr double kLinear = 0x1.62e42ff0c52d6p-1 / kTableSize;

inline uint32_t bits_of(float v) {
  uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}
inline uint64_t bits_of(double v) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}
inline double double_of(uint64_t b) {
  double v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

}  // namespace exp_float_detail

inline float exp_float(float x) {
  using namespace exp_float_detail;
  // |x| >= 88, infinities and NaN: e^x overflows or underflows near there.
  if ((bits_of(x) >> 20 & 0x7ff) >= (bits_of(88.0f) >> 20 & 0x7ff)) {
    if (x != x) return x + x;
    if (x == -std::numeric_limits<float>::infinity()) return 0.0f;
    if (x > 0x1.62e42ep6f) return std::numeric_limits<float>::infinity();  // e^x >= 2^128
    if (x < -0x1.9fe368p6f) return 0.0f;                                   // e^x < 2^-150
  }
  const double z = kScaledInverseLn2 * static_cast<double>(x);
  const double shifted = z + kRoundingShift;
  const uint64_t k = bits_of(shifted);
  const double r = z - (shifted - kRoundingShift);
  const double scale = double_of(kPowers[k % kTableSize] + (k << (52 - kTableBits)));
  const double high = kCubic * r + kSquare;
  const double low = kLinear * r + 1.0;
  const double r2 = r * r;
  return static_cast<float>((high * r2 + low) * scale);
}

}  // namespace dmo

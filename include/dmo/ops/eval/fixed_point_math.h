// Fixed-point exp, logistic, tanh and reciprocal on int32 values with the
// arithmetic of gemmlowp's fixedpoint.h, which TFLite's quantized SOFTMAX,
// LOGISTIC and TANH reference kernels use: same polynomial, same Newton
// steps, same rounding and saturation, so results match bit for bit.
//
// Q<I> is a number with I integer bits: real = raw / 2^(31 - I). The product
// of Q<A> and Q<B> is a Q<A + B> (a rounding doubling high multiply of the
// raw values); rescale<D> changes the integer bits with a saturating or
// rounding power-of-two multiply.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "dmo/ops/fixed_point.h"

namespace dmo::fixed {

// gemmlowp adds and negates raw values without saturation; these wrap
// instead of being undefined on overflow (the values here never overflow).
inline int32_t wrapping_add(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}
inline int32_t wrapping_sub(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) - static_cast<uint32_t>(b));
}
inline int32_t wrapping_neg(int32_t a) { return static_cast<int32_t>(0u - static_cast<uint32_t>(a)); }

template <int IntegerBits>
struct Q {
  static_assert(IntegerBits >= 0 && IntegerBits < 31, "bad integer bits");
  static constexpr int kFractionalBits = 31 - IntegerBits;

  int32_t raw = 0;

  // 1.0, or the largest value below it when 1.0 is not representable.
  static constexpr Q one() {
    return Q{IntegerBits == 0 ? std::numeric_limits<int32_t>::max() : int32_t{1} << kFractionalBits};
  }
  // 2^Exponent, exactly.
  template <int Exponent>
  static constexpr Q power_of_two() {
    static_assert(kFractionalBits + Exponent >= 0 && kFractionalBits + Exponent < 31, "not representable");
    return Q{int32_t{1} << (kFractionalBits + Exponent)};
  }
};

template <int I>
Q<I> operator+(Q<I> a, Q<I> b) {
  return Q<I>{wrapping_add(a.raw, b.raw)};
}
template <int I>
Q<I> operator-(Q<I> a, Q<I> b) {
  return Q<I>{wrapping_sub(a.raw, b.raw)};
}
template <int I>
Q<I> operator-(Q<I> a) {
  return Q<I>{wrapping_neg(a.raw)};
}
template <int A, int B>
Q<A + B> operator*(Q<A> a, Q<B> b) {
  return Q<A + B>{saturating_rounding_doubling_high_mul(a.raw, b.raw)};
}

// x * 2^Exponent: saturating when Exponent > 0, rounding to nearest when < 0.
template <int Exponent>
int32_t saturating_rounding_multiply_by_pot(int32_t x) {
  if constexpr (Exponent == 0) {
    return x;
  } else if constexpr (Exponent > 0) {
    constexpr int32_t threshold = (int32_t{1} << (31 - Exponent)) - 1;
    if (x > threshold) return std::numeric_limits<int32_t>::max();
    if (x < -threshold) return std::numeric_limits<int32_t>::min();
    return x * (int32_t{1} << Exponent);
  } else {
    return rounding_divide_by_pot(x, -Exponent);
  }
}

template <int Dst, int Src>
Q<Dst> rescale(Q<Src> x) {
  return Q<Dst>{saturating_rounding_multiply_by_pot<Src - Dst>(x.raw)};
}

// Reinterprets the raw value with more or fewer integer bits: exact * 2^Exponent.
template <int Exponent, int I>
Q<I + Exponent> exact_multiply_by_pot(Q<I> x) {
  return Q<I + Exponent>{x.raw};
}

// (a + b) / 2 rounded half away from zero.
template <int I>
Q<I> rounding_half_sum(Q<I> a, Q<I> b) {
  const int64_t sum = int64_t{a.raw} + int64_t{b.raw};
  const int64_t sign = sum >= 0 ? 1 : -1;
  return Q<I>{static_cast<int32_t>((sum + sign) / 2)};
}

// exp(a) for a in [-1/4, 0): Taylor expansion around -1/8.
inline Q<0> exp_on_interval_between_negative_one_quarter_and_0_excl(Q<0> a) {
  const Q<0> constant_term{1895147668};     // exp(-1/8)
  const Q<0> constant_1_over_3{715827883};  // 1/3
  const Q<0> x = a + Q<0>::power_of_two<-3>();
  const Q<0> x2 = x * x;
  const Q<0> x3 = x2 * x;
  const Q<0> x4 = x2 * x2;
  const Q<0> x4_over_4{saturating_rounding_multiply_by_pot<-2>(x4.raw)};
  const Q<0> x4_over_24_plus_x3_over_6_plus_x2_over_2{
      saturating_rounding_multiply_by_pot<-1>((((x4_over_4 + x3) * constant_1_over_3) + x2).raw)};
  return constant_term + constant_term * (x + x4_over_24_plus_x3_over_6_plus_x2_over_2);
}

// One step of exp's barrel shifter: multiplies by exp(-2^Exponent) when that
// bit of the remainder is set.
template <int I, int Exponent>
void exp_barrel_step(Q<0>& result, int32_t remainder, int32_t exp_of_minus_pot) {
  if constexpr (I > Exponent) {
    constexpr int kShift = Q<I>::kFractionalBits + Exponent;
    if (remainder & (int32_t{1} << kShift)) result = result * Q<0>{exp_of_minus_pot};
  }
}

// exp(a) for a <= 0.
template <int I>
Q<0> exp_on_negative_values(Q<I> a) {
  const Q<I> one_quarter = Q<I>::template power_of_two<-2>();
  const Q<I> mask = one_quarter - Q<I>{1};
  const Q<I> a_mod_quarter_minus_one_quarter = Q<I>{a.raw & mask.raw} - one_quarter;
  Q<0> result = exp_on_interval_between_negative_one_quarter_and_0_excl(rescale<0>(a_mod_quarter_minus_one_quarter));
  const int32_t remainder = (a_mod_quarter_minus_one_quarter - a).raw;
  exp_barrel_step<I, -2>(result, remainder, 1672461947);
  exp_barrel_step<I, -1>(result, remainder, 1302514674);
  exp_barrel_step<I, +0>(result, remainder, 790015084);
  exp_barrel_step<I, +1>(result, remainder, 290630308);
  exp_barrel_step<I, +2>(result, remainder, 39332535);
  exp_barrel_step<I, +3>(result, remainder, 720401);
  exp_barrel_step<I, +4>(result, remainder, 242);
  if constexpr (I > 5) {
    const int32_t clamp = -(int32_t{1} << (36 - I));  // -32
    if (a.raw < clamp) result = Q<0>{0};
  }
  if (a.raw == 0) result = Q<0>::one();
  return result;
}

// Newton-Raphson for 1 / (1 + a), a in (0, 1): x approximates
// 1 / half_denominator in Q<2>.
inline Q<2> reciprocal_of_half_denominator(Q<0> half_denominator) {
  const Q<2> constant_48_over_17{1515870810};
  const Q<2> constant_neg_32_over_17{-1010580540};
  Q<2> x = constant_48_over_17 + half_denominator * constant_neg_32_over_17;
  for (int i = 0; i < 3; ++i) {
    const Q<2> half_denominator_times_x = half_denominator * x;
    const Q<2> one_minus_half_denominator_times_x = Q<2>::one() - half_denominator_times_x;
    x = x + rescale<2>(x * one_minus_half_denominator_times_x);
  }
  return x;
}

// 1 / (1 + a) for a in (0, 1).
inline Q<0> one_over_one_plus_x_for_x_in_0_1(Q<0> a) {
  const Q<2> x = reciprocal_of_half_denominator(rounding_half_sum(a, Q<0>::one()));
  return rescale<0>(exact_multiply_by_pot<-1>(x));
}

// (1 - a) / (1 + a) for a in (0, 1).
inline Q<0> one_minus_x_over_one_plus_x_for_x_in_0_1(Q<0> a) {
  const Q<2> x = reciprocal_of_half_denominator(rounding_half_sum(a, Q<0>::one()));
  return rescale<0>(x - Q<2>::one());
}

template <int I>
Q<0> tanh(Q<I> a) {
  const bool negative = a.raw < 0;
  const Q<I> non_positive = negative ? a : -a;
  // -tanh(n) for n <= 0 is (1 - exp(2n)) / (1 + exp(2n)).
  const Q<0> t = one_minus_x_over_one_plus_x_for_x_in_0_1(exp_on_negative_values(exact_multiply_by_pot<1>(non_positive)));
  if (a.raw == 0) return Q<0>{0};
  return negative ? -t : t;
}

template <int I>
Q<0> logistic(Q<I> a) {
  const bool positive = a.raw > 0;
  const Q<I> abs_input = positive ? a : -a;
  const Q<0> result_if_positive = one_over_one_plus_x_for_x_in_0_1(exp_on_negative_values(-abs_input));
  const Q<0> result_if_negative = Q<0>::one() - result_if_positive;
  if (a.raw == 0) return Q<0>{int32_t{1} << 30};  // one half
  return positive ? result_if_positive : result_if_negative;
}

// 1 / x for x > 0 with `x_integer_digits` integer bits, as a Q<0> scale and
// the number of bits x has above 1.0 (TFLite's GetReciprocal).
inline int32_t reciprocal(int32_t x, int x_integer_digits, int* num_bits_over_unit) {
  // x is a sum that includes exp(0) = 1, so it is never 0; guard the shift anyway.
  const int headroom_plus_one = x == 0 ? 31 : std::countl_zero(static_cast<uint32_t>(x));
  *num_bits_over_unit = x_integer_digits - headroom_plus_one;
  const auto shifted_sum_minus_one =
      static_cast<int32_t>((static_cast<uint32_t>(x) << headroom_plus_one) - (uint32_t{1} << 31));
  return one_over_one_plus_x_for_x_in_0_1(Q<0>{shifted_sum_minus_one}).raw;
}

// Largest input difference (in input units scaled by 2^input_left_shift)
// whose rescaled value still fits `input_integer_bits` (TFLite's
// CalculateInputRadius).
inline int32_t input_radius(int input_integer_bits, int input_left_shift, int total_signed_bits = 31) {
  const double max_input_rescaled = 1.0 * ((1 << input_integer_bits) - 1) *
                                    static_cast<double>(int64_t{1} << (total_signed_bits - input_integer_bits)) /
                                    static_cast<double>(int64_t{1} << input_left_shift);
  return static_cast<int32_t>(std::floor(max_input_rescaled));
}

}  // namespace dmo::fixed

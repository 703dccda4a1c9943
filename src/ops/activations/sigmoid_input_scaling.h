// Input rescaling of quantized LOGISTIC and TANH (TFLite Micro's
// CalculateArithmeticOpDataLogistic and TanhPrepare): the input difference
// from the zero point goes to a Q4.27 fixed-point number through the
// multiplier input_scale * 2^27; differences beyond the radius saturate the
// output without computing.
#pragma once

#include <cstdint>

#include <fmt/format.h>

#include "../elementwise.h"
#include "dmo/ops/eval/fixed_point_math.h"
#include "dmo/ops/fixed_point.h"

namespace dmo {

constexpr int kSigmoidInputIntegerBits = 4;

struct SigmoidInputScaling {
  int32_t zero_point = 0;
  QuantizedMultiplier multiplier;
  int32_t radius = 0;

  // The input value's difference from the zero point as a Q4.27 number.
  fixed::Q<kSigmoidInputIntegerBits> rescaled(int32_t difference) const {
    return fixed::Q<kSigmoidInputIntegerBits>{multiply_by_quantized_multiplier(difference, multiplier)};
  }
};

inline SigmoidInputScaling sigmoid_input_scaling(const OpContext& ctx) {
  const AffineQuantization in = affine_quantization(ctx, ctx.input(0), "input");
  SigmoidInputScaling s;
  s.zero_point = in.zero_point;
  s.multiplier = quantize_multiplier(static_cast<double>(in.scale) *
                                     static_cast<double>(1 << (31 - kSigmoidInputIntegerBits)));
  ctx.require(s.multiplier.shift >= 0 && s.multiplier.shift <= 31,
              fmt::format("input scale {} is out of the supported range", in.scale));
  s.radius = fixed::input_radius(kSigmoidInputIntegerBits, s.multiplier.shift);
  return s;
}

}  // namespace dmo

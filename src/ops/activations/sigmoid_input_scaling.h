// Input rescaling of quantized LOGISTIC and TANH (TFLite Micro's
// CalculateArithmeticOpDataLogistic and TanhPrepare): the input difference
// from the zero point goes to a Q4.27 fixed-point number through the
// multiplier input_scale * 2^27; differences beyond the radius saturate the
// output without computing (ops/eval/sigmoid_arithmetic.h).
#pragma once

#include <cstdint>

#include <fmt/format.h>

#include "../elementwise.h"
#include "dmo/ops/eval/fixed_point_math.h"
#include "dmo/ops/eval/sigmoid_arithmetic.h"
#include "dmo/ops/fixed_point.h"

namespace dmo {

inline SigmoidInput sigmoid_input_scaling(const OpContext& ctx) {
  const AffineQuantization in = affine_quantization(ctx, ctx.input(0), "input");
  SigmoidInput s;
  s.zero_point = in.zero_point;
  s.multiplier = quantize_multiplier(static_cast<double>(in.scale) *
                                     static_cast<double>(1 << (31 - kSigmoidInputIntegerBits)));
  ctx.require(s.multiplier.shift >= 0 && s.multiplier.shift <= 31,
              fmt::format("input scale {} is out of the supported range", in.scale));
  s.radius = fixed::input_radius(kSigmoidInputIntegerBits, s.multiplier.shift);
  return s;
}

}  // namespace dmo

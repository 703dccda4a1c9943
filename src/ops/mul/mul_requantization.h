// MUL's quantized arithmetic, shared by TFLM's reference kernel and the
// CMSIS-NN ones (arm_elementwise_mul_s8/_s16 compute the same product and
// rescaling): (a - za) * (b - zb) rescaled by
// input1_scale * input2_scale / output_scale, clamped to the activation range.
#pragma once

#include <cstdint>

#include "../elementwise.h"
#include "dmo/ops/activation_range.h"
#include "dmo/ops/eval/mul_arithmetic.h"
#include "dmo/ops/fixed_point.h"

namespace dmo {

inline MulRequantization mul_requantization(const OpContext& ctx) {
  const AffineQuantization in1 = affine_quantization(ctx, ctx.input(0), "input 0");
  const AffineQuantization in2 = affine_quantization(ctx, ctx.input(1), "input 1");
  const AffineQuantization out = affine_quantization(ctx, ctx.output(0), "output");
  MulRequantization r;
  r.input1_offset = -in1.zero_point;
  r.input2_offset = -in2.zero_point;
  r.output_offset = out.zero_point;
  r.multiplier = quantize_multiplier(static_cast<double>(in1.scale) * static_cast<double>(in2.scale) /
                                     static_cast<double>(out.scale));
  r.range = quantized_activation_range(elementwise_activation(ctx), *ctx.output(0).tensor);
  return r;
}

}  // namespace dmo

// MUL's quantized arithmetic, shared by TFLM's reference kernel and the
// CMSIS-NN ones (arm_elementwise_mul_s8/_s16 compute the same product and
// rescaling): (a - za) * (b - zb) rescaled by
// input1_scale * input2_scale / output_scale, clamped to the activation range.
#pragma once

#include <cstdint>

#include "../elementwise.h"
#include "dmo/ops/activation_range.h"
#include "dmo/ops/fixed_point.h"

namespace dmo {

struct MulRequantization {
  int32_t input1_offset = 0, input2_offset = 0, output_offset = 0;
  QuantizedMultiplier multiplier;
  QuantizedRange range{0, 0};

  int32_t multiply(int32_t a, int32_t b) const {
    const int32_t product = (input1_offset + a) * (input2_offset + b);
    return clamp_to(output_offset + multiply_by_quantized_multiplier(product, multiplier), range.min, range.max);
  }
};

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

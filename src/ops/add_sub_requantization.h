// Quantized ADD and SUB as TFLite Micro prepares them (add_common.cc,
// sub_common.cc): both inputs are shifted left by 20 bits (15 for INT16
// outputs), rescaled to the
// scale 2 * max(input scales), added or subtracted, and rescaled to the
// output. ADD computes the real multipliers in double; SUB divides in float
// and widens the quotients, and the last bit can differ, so each op says
// which it is.
#pragma once

#include <algorithm>
#include <cstdint>

#include <fmt/format.h>

#include "dmo/model/op_params.h"
#include "dmo/ops/activation_range.h"
#include "dmo/ops/fixed_point.h"
#include "broadcast.h"
#include "dmo/ops/eval/add_sub_arithmetic.h"
#include "elementwise.h"

namespace dmo {

enum class AddSubScaleArithmetic { kDouble, kFloat };

// For quantized outputs of `ctx` (inputs 0 and 1, output 0).
inline AddSubRequantization add_sub_requantization(const OpContext& ctx, Activation activation,
                                                   AddSubScaleArithmetic arithmetic) {
  const AffineQuantization in1 = affine_quantization(ctx, ctx.input(0), "input 0");
  const AffineQuantization in2 = affine_quantization(ctx, ctx.input(1), "input 1");
  const AffineQuantization out = affine_quantization(ctx, ctx.output(0), "output");
  ctx.require(in1.scale > 0 && in2.scale > 0 && out.scale > 0, "quantization scales must be positive");
  AddSubRequantization r;
  r.input1_offset = -in1.zero_point;
  r.input2_offset = -in2.zero_point;
  r.output_offset = out.zero_point;
  r.left_shift = ctx.output(0).type() == DataType::kInt16 ? 15 : 20;
  double real_input1, real_input2, real_output;
  if (arithmetic == AddSubScaleArithmetic::kDouble) {
    const double twice_max_input_scale = 2 * static_cast<double>(std::max(in1.scale, in2.scale));
    real_input1 = static_cast<double>(in1.scale) / twice_max_input_scale;
    real_input2 = static_cast<double>(in2.scale) / twice_max_input_scale;
    real_output = twice_max_input_scale / ((1 << r.left_shift) * static_cast<double>(out.scale));
  } else {
    const float twice_max_input_scale = 2 * std::max(in1.scale, in2.scale);
    real_input1 = static_cast<double>(in1.scale / twice_max_input_scale);
    real_input2 = static_cast<double>(in2.scale / twice_max_input_scale);
    real_output = static_cast<double>(twice_max_input_scale / (static_cast<float>(1 << r.left_shift) * out.scale));
  }
  // TFLite requires every multiplier below one (a right shift).
  ctx.require(real_output < 1.0,
              fmt::format("output scale {} is too small for input scales {} and {}", out.scale, in1.scale, in2.scale));
  r.input1 = quantize_multiplier(real_input1);
  r.input2 = quantize_multiplier(real_input2);
  r.output = quantize_multiplier(real_output);
  r.range = quantized_activation_range(activation, *ctx.output(0).tensor);
  return r;
}

// The prepared quantized ADD or SUB with output type T: `Operation`
// (&AddSubRequantization::add or ::subtract) on every broadcast pair of
// inputs. `arithmetic` says how the op computes its multipliers.
template <typename T, auto Operation>
PreparedKernel prepare_quantized_add_sub(const OpContext& ctx, Activation activation,
                                         AddSubScaleArithmetic arithmetic) {
  const AddSubRequantization q = add_sub_requantization(ctx, activation, arithmetic);
  return broadcast_binary_kernel<T>(ctx, [q](T a, T b) { return static_cast<T>((q.*Operation)(a, b)); });
}

}  // namespace dmo

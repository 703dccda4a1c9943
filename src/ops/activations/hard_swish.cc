// HARD_SWISH: x * relu6(x + 3) / 6, mirroring TFLM's reference_ops::HardSwish
// (float, int8) and TFLite's (uint8).
//  - FLOAT32: TFLite's reference, in float.
//  - INT8 (TFLite Micro) and UINT8 (TFLite): reference_ops::HardSwish in
//    16-bit fixed point: the input on a 2^7 finer scale, a "relu-ish" factor
//    in [0, 1] from rescaling [-3, 3], multiplied together and shifted to
//    the output scale. Multipliers are 16-bit (HardSwishPrepare).
// Both walk the tensor flat as TFLM does: element i loaded, then stored;
// the arithmetic is ops/eval/hard_swish_arithmetic.h's.
#include <algorithm>
#include <cstdint>
#include <limits>

#include <fmt/format.h>

#include "../elementwise.h"
#include "../instance_kernel.h"
#include "dmo/ops/eval/hard_swish_arithmetic.h"
#include "dmo/ops/fixed_point.h"
#include "dmo/ops/kernels.h"

namespace dmo {
namespace {

// The upper 16 bits of a Q31 multiplier, rounded, saturating at the top.
int16_t to_int16_multiplier(int32_t multiplier) {
  constexpr int32_t kRoundingOffset = 1 << 15;
  if (multiplier >= std::numeric_limits<int32_t>::max() - kRoundingOffset) return std::numeric_limits<int16_t>::max();
  return static_cast<int16_t>((multiplier + kRoundingOffset) >> 16);
}

HardSwishParams hard_swish_params(const OpContext& ctx) {
  const AffineQuantization in = affine_quantization(ctx, ctx.input(0), "input");
  const AffineQuantization out = affine_quantization(ctx, ctx.output(0), "output");
  HardSwishParams p;
  p.input_zero_point = in.zero_point;
  p.output_zero_point = out.zero_point;
  // The scales are divided in float, as TFLite does.
  const float hires_input_scale = (1.0f / 128.0f) * in.scale;
  const float reluish_scale = 3.0f / 32768.0f;
  const QuantizedMultiplier output = quantize_multiplier(static_cast<double>(hires_input_scale / out.scale));
  ctx.require(output.shift <= 0, fmt::format("output scale {} is too small for input scale {}", out.scale, in.scale));
  p.output_multiplier = to_int16_multiplier(output.multiplier);
  p.output_exponent = output.shift;
  const QuantizedMultiplier reluish = quantize_multiplier(static_cast<double>(hires_input_scale / reluish_scale));
  p.reluish_multiplier = to_int16_multiplier(reluish.multiplier);
  p.reluish_exponent = reluish.shift;
  return p;
}

}  // namespace

PreparedKernel prepare_hard_swish(const OpContext& ctx) {
  require_operand_counts(ctx, 1, 1);
  require_output_type_matches_input(ctx);
  require_same_element_count(ctx);
  const DataType type = ctx.input(0).type();
  switch (type) {
    case DataType::kFloat32:
      return map_elements_instance<float, float>(FloatHardSwish{}, "FloatHardSwish", ctx.output(0).elements(), type);
    case DataType::kInt8:
      return map_elements_instance<int8_t, int8_t>(QuantizedHardSwish<int8_t>{hard_swish_params(ctx)},
                                                   "QuantizedHardSwish<int8_t>", ctx.output(0).elements(), type);
    case DataType::kUInt8:
      return map_elements_instance<uint8_t, uint8_t>(QuantizedHardSwish<uint8_t>{hard_swish_params(ctx)},
                                                     "QuantizedHardSwish<uint8_t>", ctx.output(0).elements(), type);
    default: fail_unsupported_type(ctx, "input", type, "FLOAT32, INT8, UINT8");
  }
}

}  // namespace dmo

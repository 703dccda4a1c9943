// LOGISTIC, mirroring TFLM's reference_ops::Logistic (float) and
// reference_integer_ops::Logistic (int8), and TFLite's reference_ops::Logistic
// (uint8).
//  - FLOAT32: TFLite's reference: 1 for x > 16.619..., exp(x) for x < -9,
//    else 1 / (1 + exp(-x)), in float.
//  - INT8: TFLite Micro's reference_integer_ops::Logistic: fixed-point
//    logistic of the Q4.27 input, output scale 1/256 and zero point -128.
//  - UINT8: TFLite's reference uint8 Logistic: the same with output zero
//    point 0.
// Every path walks the tensor flat as TFLM does: element i loaded, then stored.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "../elementwise.h"
#include "dmo/ops/eval/fixed_point_math.h"
#include "dmo/ops/kernels.h"
#include "sigmoid_input_scaling.h"

namespace dmo {
namespace {

float logistic_float(float x) {
  const float cutoff_upper = 16.619047164916992188f;
  const float cutoff_lower = -9.f;
  if (x > cutoff_upper) return 1.0f;
  if (x < cutoff_lower) return std::exp(x);
  return 1.f / (1.f + std::exp(-x));
}

// The logistic in Q0.31 rescaled to 8 fractional bits (units of 1/256).
int32_t logistic_in_256ths(const SigmoidInputScaling& s, int32_t difference) {
  return rounding_divide_by_pot(fixed::logistic(s.rescaled(difference)).raw, 31 - 8);
}

}  // namespace

PreparedKernel prepare_logistic(const OpContext& ctx) {
  require_operand_counts(ctx, 1, 1);
  require_output_type_matches_input(ctx);
  require_same_element_count(ctx);
  const DataType type = ctx.input(0).type();
  switch (type) {
    case DataType::kFloat32: return map_elements_kernel<float, float>(logistic_float);
    case DataType::kInt8: {
      const AffineQuantization out = affine_quantization(ctx, ctx.output(0), "output");
      ctx.require(out.zero_point == -128, "output zero point must be -128");
      const SigmoidInputScaling s = sigmoid_input_scaling(ctx);
      return map_elements_kernel<int8_t, int8_t>([s](int8_t x) -> int8_t {
        const int32_t difference = static_cast<int32_t>(x) - s.zero_point;
        if (difference <= -s.radius) return -128;
        if (difference >= s.radius) return 127;
        return static_cast<int8_t>(clamp_to(logistic_in_256ths(s, difference) - 128, -128, 127));
      });
    }
    case DataType::kUInt8: {
      const SigmoidInputScaling s = sigmoid_input_scaling(ctx);
      return map_elements_kernel<uint8_t, uint8_t>([s](uint8_t x) -> uint8_t {
        const int32_t difference = static_cast<int32_t>(x) - s.zero_point;
        if (difference <= -s.radius) return 0;
        if (difference >= s.radius) return 255;
        return static_cast<uint8_t>(std::min(logistic_in_256ths(s, difference), 255));
      });
    }
    default: fail_unsupported_type(ctx, "input", type, "FLOAT32, INT8, UINT8");
  }
}

}  // namespace dmo

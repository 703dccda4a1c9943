// TANH, mirroring TFLM's reference_ops::Tanh (float) and
// reference_integer_ops::Tanh (int8), and TFLite's reference_ops::Tanh (uint8).
//  - FLOAT32: std::tanh in float, as TFLite's reference.
//  - INT8: TFLite Micro's reference_integer_ops::Tanh: fixed-point tanh of
//    the Q4.27 input, output in units of 1/128 (scale 1/128, zero point 0).
//  - UINT8: TFLite's reference uint8 Tanh: the same with zero point 128.
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

// tanh in Q0.31 rescaled to 7 fractional bits (units of 1/128).
int32_t tanh_in_128ths(const SigmoidInputScaling& s, int32_t difference) {
  return rounding_divide_by_pot(fixed::tanh(s.rescaled(difference)).raw, 31 - 7);
}

}  // namespace

PreparedKernel prepare_tanh(const OpContext& ctx) {
  require_operand_counts(ctx, 1, 1);
  require_output_type_matches_input(ctx);
  require_same_element_count(ctx);
  const DataType type = ctx.input(0).type();
  switch (type) {
    case DataType::kFloat32: return map_elements_kernel<float, float>([](float x) { return std::tanh(x); });
    case DataType::kInt8: {
      const SigmoidInputScaling s = sigmoid_input_scaling(ctx);
      return map_elements_kernel<int8_t, int8_t>([s](int8_t x) -> int8_t {
        const int32_t difference = static_cast<int32_t>(x) - s.zero_point;
        if (difference <= -s.radius) return -128;
        if (difference >= s.radius) return 127;
        return static_cast<int8_t>(clamp_to(tanh_in_128ths(s, difference), -128, 127));
      });
    }
    case DataType::kUInt8: {
      const SigmoidInputScaling s = sigmoid_input_scaling(ctx);
      return map_elements_kernel<uint8_t, uint8_t>([s](uint8_t x) -> uint8_t {
        const int32_t difference = static_cast<int32_t>(x) - s.zero_point;
        if (difference <= -s.radius) return 0;
        if (difference >= s.radius) return 255;
        return static_cast<uint8_t>(std::min(tanh_in_128ths(s, difference) + 128, 255));
      });
    }
    default: fail_unsupported_type(ctx, "input", type, "FLOAT32, INT8, UINT8");
  }
}

}  // namespace dmo

// TANH, mirroring TFLM's reference_ops::Tanh (float) and
// reference_integer_ops::Tanh (int8), and TFLite's reference_ops::Tanh (uint8).
//  - FLOAT32: std::tanh in float, as TFLite's reference.
//  - INT8: TFLite Micro's reference_integer_ops::Tanh: fixed-point tanh of
//    the Q4.27 input, output in units of 1/128 (scale 1/128, zero point 0).
//  - UINT8: TFLite's reference uint8 Tanh: the same with zero point 128.
// Every path walks the tensor flat as TFLM does: element i loaded, then stored.
#include <cmath>
#include <cstdint>

#include "../elementwise.h"
#include "../instance_kernel.h"
#include "dmo/ops/eval/sigmoid_arithmetic.h"
#include "dmo/ops/kernels.h"
#include "sigmoid_input_scaling.h"

namespace dmo {
PreparedKernel prepare_tanh(const OpContext& ctx) {
  require_operand_counts(ctx, 1, 1);
  require_output_type_matches_input(ctx);
  require_same_element_count(ctx);
  const DataType type = ctx.input(0).type();
  switch (type) {
    case DataType::kFloat32: return map_elements_kernel<float, float>([](float x) { return std::tanh(x); });
    case DataType::kInt8:
      return map_elements_instance<int8_t, int8_t>(QuantizedTanh<int8_t>{sigmoid_input_scaling(ctx)},
                                                   "QuantizedTanh<int8_t>", ctx.output(0).elements(), type);
    case DataType::kUInt8:
      return map_elements_instance<uint8_t, uint8_t>(QuantizedTanh<uint8_t>{sigmoid_input_scaling(ctx)},
                                                     "QuantizedTanh<uint8_t>", ctx.output(0).elements(), type);
    default: fail_unsupported_type(ctx, "input", type, "FLOAT32, INT8, UINT8");
  }
}

}  // namespace dmo

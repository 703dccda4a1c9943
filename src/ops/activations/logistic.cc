// LOGISTIC, mirroring TFLM's reference_ops::Logistic (float) and
// reference_integer_ops::Logistic (int8), and TFLite's reference_ops::Logistic
// (uint8).
//  - FLOAT32: TFLite's reference: 1 for x > 16.619..., exp(x) for x < -9,
//    else 1 / (1 + exp(-x)), in float.
//  - INT8: TFLite Micro's reference_integer_ops::Logistic: fixed-point
//    logistic of the Q4.27 input, output scale 1/256 and zero point -128.
//  - UINT8: TFLite's reference uint8 Logistic: the same with output zero
//    point 0.
// Every path walks the tensor flat as TFLM does: element i loaded, then
// stored; the arithmetic is ops/eval/sigmoid_arithmetic.h's (exp_float for
// the float path: glibc's expf bits, on a device too).
#include <cstdint>

#include "../elementwise.h"
#include "../instance_kernel.h"
#include "dmo/ops/eval/sigmoid_arithmetic.h"
#include "dmo/ops/kernels.h"
#include "sigmoid_input_scaling.h"

namespace dmo {
PreparedKernel prepare_logistic(const OpContext& ctx) {
  require_operand_counts(ctx, 1, 1);
  require_output_type_matches_input(ctx);
  require_same_element_count(ctx);
  const DataType type = ctx.input(0).type();
  switch (type) {
    case DataType::kFloat32:
      return map_elements_instance<float, float>(FloatLogistic{}, "FloatLogistic", ctx.output(0).elements(), type);
    case DataType::kInt8: {
      const AffineQuantization out = affine_quantization(ctx, ctx.output(0), "output");
      ctx.require(out.zero_point == -128, "output zero point must be -128");
      return map_elements_instance<int8_t, int8_t>(QuantizedLogistic<int8_t>{sigmoid_input_scaling(ctx)},
                                                   "QuantizedLogistic<int8_t>", ctx.output(0).elements(), type);
    }
    case DataType::kUInt8:
      return map_elements_instance<uint8_t, uint8_t>(QuantizedLogistic<uint8_t>{sigmoid_input_scaling(ctx)},
                                                     "QuantizedLogistic<uint8_t>", ctx.output(0).elements(), type);
    default: fail_unsupported_type(ctx, "input", type, "FLOAT32, INT8, UINT8");
  }
}

}  // namespace dmo

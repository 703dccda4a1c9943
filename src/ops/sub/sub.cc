// SUB, mirroring TFLM's reference_ops::SubWithActivation / BroadcastSubSlow
// (float, int32) and reference_ops::Sub / BroadcastQuantSubSlow (int8,
// int16). The output type selects the arithmetic (FLOAT32,
// INT32, INT8, INT16, and UINT8 as INT8), and inputs of another type are
// read as that type, as TFLite Micro does; inputs broadcast with NumPy's
// rules. Order (ops/broadcast.h): the output in row-major order, a
// broadcast input following with stride 0, each output stored right after
// its two loads, as TFLM's slow broadcast loops and flat loops do.
#include <algorithm>
#include <cstdint>

#include "../add_sub_requantization.h"
#include "../broadcast.h"
#include "../elementwise.h"
#include "dmo/ops/eval/fixed_point_math.h"
#include "dmo/ops/kernels.h"

namespace dmo {

PreparedKernel prepare_sub(const OpContext& ctx) {
  require_operand_counts(ctx, 2, 1);
  const Activation activation = elementwise_activation(ctx);
  const DataType type = ctx.output(0).type();
  switch (type) {
    case DataType::kFloat32: {
      const FloatRange r = float_activation_range(activation);
      return broadcast_binary_kernel<float>(ctx,
                                            [r](float a, float b) { return std::min(std::max(a - b, r.min), r.max); });
    }
    case DataType::kInt32: {
      const QuantizedRange r = int32_activation_range(activation);
      return broadcast_binary_kernel<int32_t>(
          ctx, [r](int32_t a, int32_t b) { return std::min(std::max(fixed::wrapping_sub(a, b), r.min), r.max); });
    }
    case DataType::kInt8:
      return prepare_quantized_add_sub<int8_t, &AddSubRequantization::subtract>(ctx, activation,
                                                                                AddSubScaleArithmetic::kFloat);
    case DataType::kUInt8:
      return prepare_quantized_add_sub<uint8_t, &AddSubRequantization::subtract>(ctx, activation,
                                                                                 AddSubScaleArithmetic::kFloat);
    case DataType::kInt16:
      return prepare_quantized_add_sub<int16_t, &AddSubRequantization::subtract>(ctx, activation,
                                                                                 AddSubScaleArithmetic::kFloat);
    default:
      fail_unsupported_type(ctx, "output", type, "FLOAT32, INT32, INT8, UINT8, INT16");
  }
}

}  // namespace dmo

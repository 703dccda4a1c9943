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

#include <fmt/format.h>

#include "../add_sub_requantization.h"
#include "../broadcast.h"
#include "../elementwise.h"
#include "dmo/ops/eval/add_sub_arithmetic.h"
#include "dmo/ops/eval/fixed_point_math.h"
#include "dmo/ops/kernels.h"

namespace dmo {

namespace {

// TFLM's SUB divides its scales in float (add_sub_requantization.h).
template <typename T>
PreparedKernel quantized_sub(const OpContext& ctx, Activation activation) {
  return broadcast_binary_instance<T>(
      ctx, QuantizedSub<T>{add_sub_requantization(ctx, activation, AddSubScaleArithmetic::kFloat)},
      fmt::format("QuantizedSub<{}>", device_type_name<T>()));
}

}  // namespace

PreparedKernel prepare_sub(const OpContext& ctx) {
  require_operand_counts(ctx, 2, 1);
  const Activation activation = elementwise_activation(ctx);
  const DataType type = ctx.output(0).type();
  switch (type) {
    case DataType::kFloat32:
      return broadcast_binary_instance<float>(ctx, FloatSub{float_activation_range(activation)}, "FloatSub");
    case DataType::kInt32: {
      const QuantizedRange r = int32_activation_range(activation);
      return broadcast_binary_kernel<int32_t>(
          ctx, [r](int32_t a, int32_t b) { return std::min(std::max(fixed::wrapping_sub(a, b), r.min), r.max); });
    }
    case DataType::kInt8: return quantized_sub<int8_t>(ctx, activation);
    case DataType::kUInt8: return quantized_sub<uint8_t>(ctx, activation);
    case DataType::kInt16: return quantized_sub<int16_t>(ctx, activation);
    default:
      fail_unsupported_type(ctx, "output", type, "FLOAT32, INT32, INT8, UINT8, INT16");
  }
}

}  // namespace dmo

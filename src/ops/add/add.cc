// ADD: TFLite Micro's reference Add / BroadcastAdd6DSlow. The output type
// selects the arithmetic (FLOAT32, INT32, INT8, INT16 with general scales,
// and UINT8 as TFLite's reference kernel), and inputs of another type are
// read as that type, as TFLite Micro does; inputs broadcast with NumPy's
// rules.
#include <algorithm>
#include <cstdint>

#include "../add_sub_requantization.h"
#include "../broadcast.h"
#include "../elementwise.h"
#include "../fixed_point_math.h"
#include "dmo/ops/kernel_instantiation.h"
#include "dmo/ops/kernels.h"

namespace dmo {

template <class Memory>
void run_add(const OpContext& ctx, Memory& mem) {
  require_operand_counts(ctx, 2, 1);
  const Activation activation = elementwise_activation(ctx);
  const DataType type = ctx.output(0).type();
  switch (type) {
    case DataType::kFloat32: {
      const FloatRange r = float_activation_range(activation);
      return broadcast_binary<float>(ctx, mem, [r](float a, float b) { return std::min(std::max(a + b, r.min), r.max); });
    }
    case DataType::kInt32:
      // TFLite Micro ignores the fused activation of INT32 ADD.
      return broadcast_binary<int32_t>(ctx, mem, [](int32_t a, int32_t b) { return fixed::wrapping_add(a, b); });
    case DataType::kInt8:
      return quantized_add_sub<int8_t, &AddSubRequantization::add>(ctx, mem, activation, AddSubScaleArithmetic::kDouble);
    case DataType::kUInt8:
      return quantized_add_sub<uint8_t, &AddSubRequantization::add>(ctx, mem, activation, AddSubScaleArithmetic::kDouble);
    case DataType::kInt16:
      return quantized_add_sub<int16_t, &AddSubRequantization::add>(ctx, mem, activation, AddSubScaleArithmetic::kDouble);
    default:
      fail_unsupported_type(ctx, "output", type, "FLOAT32, INT32, INT8, UINT8, INT16");
  }
}

DMO_INSTANTIATE_KERNEL(run_add);

}  // namespace dmo

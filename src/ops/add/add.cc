// ADD, mirroring TFLM's reference_ops::Add / BroadcastAdd6DSlow (float,
// int32, int16) and reference_integer_ops::Add / BroadcastAdd6DSlow (int8),
// and TFLite's reference_ops::Add (uint8). The output type
// selects the arithmetic (FLOAT32, INT32, INT8, INT16 with general scales,
// and UINT8 as TFLite's reference kernel), and inputs of another type are
// read as that type, as TFLite Micro does; inputs broadcast with NumPy's
// rules. Order (ops/broadcast.h): the output in row-major order, a
// broadcast input following with stride 0, each output stored right after
// its two loads, as TFLM's BroadcastAdd6DSlow and flat Add do.
#include <algorithm>
#include <cstdint>

#include "../add_sub_requantization.h"
#include "../broadcast.h"
#include "../elementwise.h"
#include "dmo/ops/eval/fixed_point_math.h"
#include "dmo/ops/kernels.h"

namespace dmo {

namespace {

// int8 and uint8 ADD with their device path: dmo's int8 device kernel, or
// for uint8 the shared broadcast nest.
template <typename T>
PreparedKernel quantized_add_with_device_path(const OpContext& ctx, Activation activation) {
  PreparedKernel p = prepare_quantized_add_sub<T, &AddSubRequantization::add>(ctx, activation,
                                                                              AddSubScaleArithmetic::kDouble);
  auto device = std::make_shared<DeviceKernel>();
  device->loops = DeviceLoops::kAdd;
  device->type = ctx.output(0).type();
  device->broadcast = BroadcastShape(ctx, ctx.input(0).shape(), ctx.input(1).shape(), ctx.output(0).shape());
  device->add = add_sub_requantization(ctx, activation, AddSubScaleArithmetic::kDouble);
  p.device = std::move(device);
  return p;
}

}  // namespace

PreparedKernel prepare_add(const OpContext& ctx) {
  require_operand_counts(ctx, 2, 1);
  const Activation activation = elementwise_activation(ctx);
  const DataType type = ctx.output(0).type();
  switch (type) {
    case DataType::kFloat32: {
      const FloatAdd add{float_activation_range(activation)};
      PreparedKernel p = broadcast_binary_kernel<float>(ctx, add);
      auto device = std::make_shared<DeviceKernel>();
      device->loops = DeviceLoops::kAdd;
      device->type = type;
      device->broadcast = BroadcastShape(ctx, ctx.input(0).shape(), ctx.input(1).shape(), ctx.output(0).shape());
      device->float_range = add.range;
      p.device = std::move(device);
      return p;
    }
    case DataType::kInt32:
      // TFLite Micro ignores the fused activation of INT32 ADD.
      return broadcast_binary_kernel<int32_t>(ctx, [](int32_t a, int32_t b) { return fixed::wrapping_add(a, b); });
    case DataType::kInt8:
      return quantized_add_with_device_path<int8_t>(ctx, activation);
    case DataType::kUInt8:
      return quantized_add_with_device_path<uint8_t>(ctx, activation);
    case DataType::kInt16:
      return prepare_quantized_add_sub<int16_t, &AddSubRequantization::add>(ctx, activation,
                                                                            AddSubScaleArithmetic::kDouble);
    default:
      fail_unsupported_type(ctx, "output", type, "FLOAT32, INT32, INT8, UINT8, INT16");
  }
}

}  // namespace dmo

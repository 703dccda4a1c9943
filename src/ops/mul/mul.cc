// MUL, mirroring TFLM's reference_ops::Mul / BroadcastMul6DSlow (float,
// int32) and reference_integer_ops::Mul / BroadcastMul6DSlow (int8, int16;
// INT16 with zero points 0), and TFLite's reference kernel for UINT8. The
// quantized product (a - za) * (b - zb) is rescaled by
// input1_scale * input2_scale / output_scale (in double) to the output.
// Order (ops/broadcast.h): the output in row-major order, a broadcast input
// following with stride 0, each output stored right after its two loads.
#include <algorithm>
#include <cstdint>

#include <fmt/format.h>

#include "../broadcast.h"
#include "../elementwise.h"
#include "mul_requantization.h"
#include "dmo/ops/activation_range.h"
#include "dmo/ops/fixed_point.h"
#include "dmo/ops/kernels.h"

namespace dmo {
namespace {

int32_t wrapping_mul(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(b));
}

// float32, int8 and uint8 MUL with their device path, the shared
// broadcast nest with the same arithmetic.
template <typename T, class F>
PreparedKernel with_device_path(const OpContext& ctx, F f, const MulRequantization& q, FloatRange float_range) {
  PreparedKernel p = broadcast_binary_kernel<T>(ctx, f);
  auto device = std::make_shared<DeviceKernel>();
  device->loops = DeviceLoops::kMul;
  device->type = ctx.output(0).type();
  device->broadcast = BroadcastShape(ctx, ctx.input(0).shape(), ctx.input(1).shape(), ctx.output(0).shape());
  device->mul = q;
  device->float_range = float_range;
  p.device = std::move(device);
  return p;
}

}  // namespace

PreparedKernel prepare_mul(const OpContext& ctx) {
  const DataType type = require_two_inputs_of_one_type(ctx);
  require_output_type_matches_input(ctx);
  const Activation activation = elementwise_activation(ctx);
  switch (type) {
    case DataType::kFloat32: {
      const FloatMul mul{float_activation_range(activation)};
      return with_device_path<float>(ctx, mul, MulRequantization{}, mul.range);
    }
    case DataType::kInt32: {
      const QuantizedRange r = int32_activation_range(activation);
      return broadcast_binary_kernel<int32_t>(
          ctx, [r](int32_t a, int32_t b) { return std::min(std::max(wrapping_mul(a, b), r.min), r.max); });
    }
    case DataType::kInt8: {
      const MulRequantization q = mul_requantization(ctx);
      return with_device_path<int8_t>(ctx, QuantizedMul<int8_t>{q}, q, FloatRange{0, 0});
    }
    case DataType::kUInt8: {
      const MulRequantization q = mul_requantization(ctx);
      return with_device_path<uint8_t>(ctx, QuantizedMul<uint8_t>{q}, q, FloatRange{0, 0});
    }
    case DataType::kInt16: {
      const MulRequantization q = mul_requantization(ctx);
      ctx.require(q.input1_offset == 0 && q.input2_offset == 0 && q.output_offset == 0,
                  "INT16 operands must have zero point 0");
      return broadcast_binary_kernel<int16_t>(
          ctx, [q](int16_t a, int16_t b) { return static_cast<int16_t>(q.multiply(a, b)); });
    }
    default:
      fail_unsupported_type(ctx, "input", type, "FLOAT32, INT32, INT8, UINT8, INT16");
  }
}

}  // namespace dmo

// DEQUANTIZE: INT8 and INT16 (TFLite Micro) and UINT8 (TFLite) to FLOAT32,
// scale * (x - zero point) with a float scale, mirroring TFLM's
// reference_ops::Dequantize: flat, element i loaded, then stored.
#include <cstdint>

#include "../elementwise.h"
#include "dmo/ops/eval/quantize_arithmetic.h"
#include "dmo/ops/kernels.h"

namespace dmo {
namespace {

template <typename In>
PreparedKernel prepare_dequantize_from(const OpContext& ctx) {
  const AffineQuantization q = affine_quantization(ctx, ctx.input(0), "input");
  PreparedKernel p = map_elements_kernel<In, float>(Dequantize<In>{q.scale, q.zero_point});
  auto device = std::make_shared<DeviceKernel>();
  device->loops = DeviceLoops::kDequantize;
  device->type = DataType::kFloat32;
  device->element_map.input = ctx.input(0).type();
  device->element_map.output = DataType::kFloat32;
  device->element_map.elements = ctx.output(0).elements();
  device->element_map.scale = q.scale;
  device->element_map.input_zero_point = q.zero_point;
  p.device = std::move(device);
  return p;
}

}  // namespace

PreparedKernel prepare_dequantize(const OpContext& ctx) {
  require_operand_counts(ctx, 1, 1);
  require_same_element_count(ctx);
  const DataType out = ctx.output(0).type();
  if (out != DataType::kFloat32) fail_unsupported_type(ctx, "output", out, "FLOAT32");
  const DataType in = ctx.input(0).type();
  switch (in) {
    case DataType::kInt8: return prepare_dequantize_from<int8_t>(ctx);
    case DataType::kUInt8: return prepare_dequantize_from<uint8_t>(ctx);
    case DataType::kInt16: return prepare_dequantize_from<int16_t>(ctx);
    default: fail_unsupported_type(ctx, "input", in, "INT8, UINT8, INT16");
  }
}

}  // namespace dmo

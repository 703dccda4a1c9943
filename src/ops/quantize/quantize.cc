// QUANTIZE, as TFLite Micro's quantize_common.cc, mirroring
// reference_ops::AffineQuantize and reference_ops::Requantize:
//  - FLOAT32 -> INT8, INT16 (and UINT8 as TFLite): AffineQuantize,
//    round(x / scale) in float, half away from zero, plus the zero point,
//    saturated.
//  - integer -> integer requantization (INT8 -> INT8, UINT8, INT16, INT32;
//    UINT8 -> INT8; INT16 -> INT8, INT16, INT32; INT32 -> INT8, INT16):
//    (x - input zero point) times input_scale / output_scale (in double),
//    plus the output zero point, saturated.
// Both walk the tensor flat, as TFLM's loops: element i loaded, then stored.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include <fmt/format.h>

#include "../elementwise.h"
#include "dmo/ops/eval/fixed_point_math.h"
#include "dmo/ops/eval/quantize_arithmetic.h"
#include "dmo/ops/fixed_point.h"
#include "dmo/ops/kernels.h"

namespace dmo {
namespace {

// The kernel over the elements with its device path, the same nest and
// arithmetic in generated code.
template <typename In, typename Out, class F>
PreparedKernel with_device_path(const OpContext& ctx, F f, DeviceElementMap map) {
  PreparedKernel p = map_elements_kernel<In, Out>(f);
  auto device = std::make_shared<DeviceKernel>();
  device->loops = DeviceLoops::kQuantize;
  device->type = ctx.output(0).type();
  map.input = ctx.input(0).type();
  map.output = ctx.output(0).type();
  map.elements = ctx.output(0).elements();
  device->element_map = map;
  p.device = std::move(device);
  return p;
}

template <typename Out>
PreparedKernel prepare_affine_quantize(const OpContext& ctx, AffineQuantization out) {
  DeviceElementMap map;
  map.scale = out.scale;
  map.output_zero_point = out.zero_point;
  return with_device_path<float, Out>(ctx, AffineQuantize<Out>{out.scale, out.zero_point}, map);
}

template <typename In, typename Out>
PreparedKernel prepare_requantize(const OpContext& ctx, AffineQuantization in, AffineQuantization out) {
  DeviceElementMap map;
  map.input_zero_point = in.zero_point;
  map.output_zero_point = out.zero_point;
  map.multiplier = quantize_multiplier(static_cast<double>(in.scale) / static_cast<double>(out.scale));
  return with_device_path<In, Out>(ctx, Requantize<In, Out>{in.zero_point, out.zero_point, map.multiplier}, map);
}

[[noreturn]] void fail_unsupported_pair(const OpContext& ctx, std::string_view supported) {
  ctx.fail(fmt::format("output type {} with {} input is not supported; supported: {}",
                       data_type_name(ctx.output(0).type()), data_type_name(ctx.input(0).type()), supported));
}

}  // namespace

PreparedKernel prepare_quantize(const OpContext& ctx) {
  require_operand_counts(ctx, 1, 1);
  require_same_element_count(ctx);
  const DataType in_type = ctx.input(0).type();
  const DataType out_type = ctx.output(0).type();
  const Quantization& out_q = ctx.output(0).tensor->quantization;
  ctx.require(out_q.scale.size() == 1, "the output must be quantized per tensor");
  const AffineQuantization out = affine_quantization(ctx, ctx.output(0), "output");
  if (in_type == DataType::kFloat32) {
    switch (out_type) {
      case DataType::kInt8: return prepare_affine_quantize<int8_t>(ctx, out);
      case DataType::kUInt8: return prepare_affine_quantize<uint8_t>(ctx, out);
      case DataType::kInt16: return prepare_affine_quantize<int16_t>(ctx, out);
      default: fail_unsupported_pair(ctx, "INT8, UINT8, INT16");
    }
  }
  auto input_quantization = [&] { return affine_quantization(ctx, ctx.input(0), "input"); };
  switch (in_type) {
    case DataType::kInt8:
      switch (out_type) {
        case DataType::kInt8: return prepare_requantize<int8_t, int8_t>(ctx, input_quantization(), out);
        case DataType::kUInt8: return prepare_requantize<int8_t, uint8_t>(ctx, input_quantization(), out);
        case DataType::kInt16: return prepare_requantize<int8_t, int16_t>(ctx, input_quantization(), out);
        case DataType::kInt32: return prepare_requantize<int8_t, int32_t>(ctx, input_quantization(), out);
        default: fail_unsupported_pair(ctx, "INT8, UINT8, INT16, INT32");
      }
    case DataType::kUInt8:
      if (out_type == DataType::kInt8) return prepare_requantize<uint8_t, int8_t>(ctx, input_quantization(), out);
      fail_unsupported_pair(ctx, "INT8");
    case DataType::kInt16:
      switch (out_type) {
        case DataType::kInt8: return prepare_requantize<int16_t, int8_t>(ctx, input_quantization(), out);
        case DataType::kInt16: return prepare_requantize<int16_t, int16_t>(ctx, input_quantization(), out);
        case DataType::kInt32: return prepare_requantize<int16_t, int32_t>(ctx, input_quantization(), out);
        default: fail_unsupported_pair(ctx, "INT8, INT16, INT32");
      }
    case DataType::kInt32:
      switch (out_type) {
        case DataType::kInt8: return prepare_requantize<int32_t, int8_t>(ctx, input_quantization(), out);
        case DataType::kInt16: return prepare_requantize<int32_t, int16_t>(ctx, input_quantization(), out);
        default: fail_unsupported_pair(ctx, "INT8, INT16");
      }
    default:
      fail_unsupported_type(ctx, "input", in_type, "FLOAT32, INT8, UINT8, INT16, INT32");
  }
}

}  // namespace dmo

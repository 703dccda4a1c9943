// RELU, RELU6 and RELU_N1_TO_1, mirroring TFLM's ReluFloat / Relu6Float
// and ReluQuantized / Relu6Quantized (activations.cc), and TFLite's
// reference_ops::Relu1 and QuantizedReluX for RELU_N1_TO_1.
//  - FLOAT32: a clamp, written as TFLite's reference kernels write it.
//  - RELU and RELU_N1_TO_1 on quantized types requantize to the output
//    (TFLite Micro's ReluQuantized, TFLite's QuantizedReluX): multiplier
//    input_scale / output_scale, then a clamp to the quantized bounds.
//  - RELU6 on quantized types clamps in the input's quantization to the
//    quantized 0 and 6 (TFLite Micro's Relu6Quantized), no requantization.
// Every path walks the tensor flat as TFLM does: element i loaded, then
// stored; the arithmetic is ops/eval/activation_arithmetic.h's.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "../elementwise.h"
#include "../instance_kernel.h"
#include "dmo/ops/eval/activation_arithmetic.h"
#include "dmo/ops/fixed_point.h"
#include "dmo/ops/kernels.h"

namespace dmo {
namespace {

// TFLite's CalculateReluOpData for a clamp to [act_min, act_max] (no upper
// bound when act_max is absent).
template <typename T>
RequantizedClamp<T> relu_requantization(const OpContext& ctx, float act_min, std::optional<float> act_max) {
  const AffineQuantization in = affine_quantization(ctx, ctx.input(0), "input");
  const AffineQuantization out = affine_quantization(ctx, ctx.output(0), "output");
  RequantizedClamp<T> r;
  r.input_zero_point = in.zero_point;
  r.output_zero_point = out.zero_point;
  // CalculateReluOpData divides the scales in float.
  r.multiplier = quantize_multiplier(static_cast<double>(in.scale / out.scale));
  auto quantize = [&](float f) { return out.zero_point + static_cast<int32_t>(std::round(f / out.scale)); };
  r.min = std::max(static_cast<int32_t>(std::numeric_limits<T>::min()), quantize(act_min));
  r.max = act_max ? std::min(static_cast<int32_t>(std::numeric_limits<T>::max()), quantize(*act_max))
                  : static_cast<int32_t>(std::numeric_limits<T>::max());
  return r;
}

template <typename T>
PreparedKernel prepare_relu_requantized(const OpContext& ctx, float act_min, std::optional<float> act_max) {
  return map_elements_instance<T, T>(relu_requantization<T>(ctx, act_min, act_max),
                                     fmt::format("RequantizedClamp<{}>", device_type_name<T>()),
                                     ctx.output(0).elements(), ctx.input(0).type());
}

// TFLite Micro's FloatToQuantizedType: round(value / scale) + zero point, saturated to T.
template <typename T>
T quantize_saturated(float value, AffineQuantization q) {
  int32_t result = static_cast<int32_t>(std::round(value / q.scale)) + q.zero_point;
  result = std::max(static_cast<int32_t>(std::numeric_limits<T>::min()), result);
  result = std::min(static_cast<int32_t>(std::numeric_limits<T>::max()), result);
  return static_cast<T>(result);
}

// x clamped in its own terms (ValueClamp).
template <typename T>
PreparedKernel value_clamp(const OpContext& ctx, T lower, T upper) {
  return map_elements_instance<T, T>(ValueClamp<T>{lower, upper},
                                     fmt::format("ValueClamp<{}>", device_type_name<T>()), ctx.output(0).elements(),
                                     ctx.input(0).type());
}

template <typename T>
PreparedKernel prepare_relu6_quantized(const OpContext& ctx) {
  const AffineQuantization in = affine_quantization(ctx, ctx.input(0), "input");
  const T lower = static_cast<T>(in.zero_point);
  const T upper = quantize_saturated<T>(6.0f, in);
  return value_clamp<T>(ctx, lower, upper);
}

void require_unary(const OpContext& ctx) {
  require_operand_counts(ctx, 1, 1);
  require_output_type_matches_input(ctx);
  require_same_element_count(ctx);
}

}  // namespace

PreparedKernel prepare_relu(const OpContext& ctx) {
  require_unary(ctx);
  const DataType type = ctx.input(0).type();
  switch (type) {
    case DataType::kFloat32:
      // x < 0 ? 0 : x, for every x (NaN and -0 too).
      return value_clamp<float>(ctx, 0.0f, std::numeric_limits<float>::infinity());
    case DataType::kInt8: return prepare_relu_requantized<int8_t>(ctx, 0.0f, std::nullopt);
    case DataType::kUInt8: return prepare_relu_requantized<uint8_t>(ctx, 0.0f, std::nullopt);
    case DataType::kInt16: return prepare_relu_requantized<int16_t>(ctx, 0.0f, std::nullopt);
    default: fail_unsupported_type(ctx, "input", type, "FLOAT32, INT8, UINT8, INT16");
  }
}

PreparedKernel prepare_relu6(const OpContext& ctx) {
  require_unary(ctx);
  const DataType type = ctx.input(0).type();
  switch (type) {
    case DataType::kFloat32:
      return value_clamp<float>(ctx, 0.0f, 6.0f);
    case DataType::kInt8: return prepare_relu6_quantized<int8_t>(ctx);
    case DataType::kUInt8: return prepare_relu6_quantized<uint8_t>(ctx);
    case DataType::kInt16: return prepare_relu6_quantized<int16_t>(ctx);
    default: fail_unsupported_type(ctx, "input", type, "FLOAT32, INT8, UINT8, INT16");
  }
}

PreparedKernel prepare_relu_n1_to_1(const OpContext& ctx) {
  require_unary(ctx);
  const DataType type = ctx.input(0).type();
  switch (type) {
    case DataType::kFloat32:
      return value_clamp<float>(ctx, -1.0f, 1.0f);
    case DataType::kInt8: return prepare_relu_requantized<int8_t>(ctx, -1.0f, 1.0f);
    case DataType::kUInt8: return prepare_relu_requantized<uint8_t>(ctx, -1.0f, 1.0f);
    default: fail_unsupported_type(ctx, "input", type, "FLOAT32, INT8, UINT8");
  }
}

}  // namespace dmo

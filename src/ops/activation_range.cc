#include "dmo/ops/activation_range.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dmo {

FloatRange float_activation_range(Activation activation) {
  switch (activation) {
    case Activation::kRelu: return {0.0f, std::numeric_limits<float>::max()};
    case Activation::kRelu6: return {0.0f, 6.0f};
    case Activation::kReluN1To1: return {-1.0f, 1.0f};
    default: return {std::numeric_limits<float>::lowest(), std::numeric_limits<float>::max()};
  }
}

QuantizedRange type_range(DataType type) {
  switch (type) {
    case DataType::kInt8: return {-128, 127};
    case DataType::kUInt8: return {0, 255};
    case DataType::kInt16: return {-32768, 32767};
    default: return {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
  }
}

QuantizedRange quantized_activation_range(Activation activation, const Tensor& output) {
  QuantizedRange range = type_range(output.type);
  const float scale = output.quantization.scale.empty() ? 1.0f : output.quantization.scale[0];
  const auto zero_point =
      static_cast<int32_t>(output.quantization.zero_point.empty() ? 0 : output.quantization.zero_point[0]);
  auto quantize = [&](float f) { return zero_point + static_cast<int32_t>(std::round(f / scale)); };
  switch (activation) {
    case Activation::kRelu:
      range.min = std::max(range.min, quantize(0.0f));
      break;
    case Activation::kRelu6:
      range.min = std::max(range.min, quantize(0.0f));
      range.max = std::min(range.max, quantize(6.0f));
      break;
    case Activation::kReluN1To1:
      range.min = std::max(range.min, quantize(-1.0f));
      range.max = std::min(range.max, quantize(1.0f));
      break;
    default:
      break;
  }
  return range;
}

}  // namespace dmo

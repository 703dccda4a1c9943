// The float twin of a quantized model: the same ops and parameters on FLOAT32
// tensors holding the real values the quantized tensors stand for, so a
// quantized kernel can be checked against the float kernel on the same data.
//
// Header-only: tests/CMakeLists.txt builds the tests from *_test.cc and a
// fixed list of support files, so this support code lives here in full.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "dmo/error.h"
#include "dmo/model/graph.h"

namespace dmo::test {

// Tensors the twin turns into float: 8-bit values and 32-bit biases that
// carry a scale. Anything else (shape and axis constants) stays as it is.
inline bool is_quantized(const Tensor& tensor) {
  const bool quantizable_type =
      tensor.type == DataType::kInt8 || tensor.type == DataType::kUInt8 || tensor.type == DataType::kInt32;
  return quantizable_type && !tensor.quantization.empty();
}

// The scale and zero point of every element: per tensor, or per channel of
// quantized_dimension.
class ElementQuantization {
 public:
  explicit ElementQuantization(const Tensor& tensor) : q_(tensor.quantization) {
    if (q_.empty()) throw Error(fmt::format("tensor '{}' has no quantization", tensor.name));
    if (!q_.zero_point.empty() && q_.zero_point.size() != q_.scale.size()) {
      throw Error(fmt::format("tensor '{}': {} scales but {} zero points", tensor.name, q_.scale.size(),
                              q_.zero_point.size()));
    }
    if (!q_.per_channel()) return;
    const auto dim = static_cast<size_t>(q_.quantized_dimension);
    if (dim >= tensor.shape.size() || static_cast<size_t>(tensor.shape[dim]) != q_.scale.size()) {
      throw Error(fmt::format("tensor '{}' of shape {}: {} scales along dimension {}", tensor.name,
                              shape_to_string(tensor.shape), q_.scale.size(), dim));
    }
    channels_ = tensor.shape[dim];
    for (size_t d = dim + 1; d < tensor.shape.size(); ++d) inner_ *= tensor.shape[d];
  }

  float scale(int64_t element) const { return q_.scale[channel(element)]; }
  int64_t zero_point(int64_t element) const { return q_.zero_point.empty() ? 0 : q_.zero_point[channel(element)]; }

 private:
  size_t channel(int64_t element) const {
    return q_.per_channel() ? static_cast<size_t>((element / inner_) % channels_) : 0;
  }

  const Quantization& q_;
  int64_t channels_ = 1;
  int64_t inner_ = 1;  // elements per step along quantized_dimension
};

// The stored integers of a quantized tensor (INT8, UINT8 or INT32), widened.
inline std::vector<int64_t> integer_values(const Tensor& tensor, std::span<const uint8_t> bytes) {
  std::vector<int64_t> values(static_cast<size_t>(tensor.element_count));
  for (size_t i = 0; i < values.size(); ++i) {
    switch (tensor.type) {
      case DataType::kInt8: values[i] = static_cast<int8_t>(bytes[i]); break;
      case DataType::kUInt8: values[i] = bytes[i]; break;
      case DataType::kInt32: {
        int32_t v;
        std::memcpy(&v, bytes.data() + 4 * i, 4);
        values[i] = v;
        break;
      }
      default:
        throw Error(fmt::format("tensor '{}': type {} is not a quantized type", tensor.name,
                                data_type_name(tensor.type)));
    }
  }
  return values;
}

// real = scale * (q - zero_point), per element.
inline std::vector<float> dequantize(const Tensor& tensor, std::span<const uint8_t> bytes) {
  const ElementQuantization quantization(tensor);
  const std::vector<int64_t> q = integer_values(tensor, bytes);
  std::vector<float> real(q.size());
  for (size_t i = 0; i < q.size(); ++i) {
    const auto e = static_cast<int64_t>(i);
    real[i] = quantization.scale(e) * static_cast<float>(q[i] - quantization.zero_point(e));
  }
  return real;
}

// Floats as little-endian bytes (the host's order; dmo runs on little-endian
// hosts only, as TFLite's flatbuffers do).
inline std::vector<uint8_t> float_bytes(const std::vector<float>& values) {
  const auto* first = reinterpret_cast<const uint8_t*>(values.data());
  return std::vector<uint8_t>(first, first + values.size() * sizeof(float));
}

inline std::vector<float> floats_from(std::span<const uint8_t> bytes) {
  std::vector<float> values(bytes.size() / sizeof(float));
  if (!values.empty()) std::memcpy(values.data(), bytes.data(), values.size() * sizeof(float));
  return values;
}

// round(real / scale) + zero_point, halves away from zero, clamped to the
// range of `type` (INT8 or UINT8).
inline int64_t quantize_value(float real, float scale, int64_t zero_point, DataType type) {
  const int64_t lowest = type == DataType::kUInt8 ? 0 : -128;
  const int64_t highest = type == DataType::kUInt8 ? 255 : 127;
  const double steps = std::round(static_cast<double>(real) / static_cast<double>(scale));
  const double clamped = std::clamp(steps + static_cast<double>(zero_point), static_cast<double>(lowest),
                                    static_cast<double>(highest));
  return static_cast<int64_t>(clamped);
}

// Subgraph 0 of `quantized` with every quantized tensor turned FLOAT32
// (values dequantized, quantization cleared); other tensors and all op
// parameters unchanged. No offline plan: the tensor sizes differ.
inline Graph float_twin(const Graph& quantized) {
  Graph twin;
  twin.source = quantized.source + " (float twin)";
  twin.version = quantized.version;
  twin.description = quantized.description;
  twin.subgraphs.push_back(quantized.main());
  for (Tensor& tensor : twin.subgraphs.front().tensors) {
    if (!is_quantized(tensor)) continue;
    if (tensor.is_constant) tensor.data = float_bytes(dequantize(tensor, tensor.data));
    tensor.type = DataType::kFloat32;
    tensor.quantization = Quantization{};
    tensor.element_count = 1;
    for (int32_t d : tensor.shape) tensor.element_count *= d;
    tensor.byte_size = tensor.element_count * static_cast<int64_t>(sizeof(float));
  }
  return twin;
}

}  // namespace dmo::test

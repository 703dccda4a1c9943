// A tensor of a subgraph: shape, type, quantization and, for constants, data.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dmo/model/data_type.h"

namespace dmo {

using Shape = std::vector<int32_t>;

// Affine quantization real = scale * (q - zero_point). One entry for
// per-tensor quantization, one per channel of quantized_dimension otherwise.
struct Quantization {
  std::vector<float> scale;
  std::vector<int64_t> zero_point;
  int32_t quantized_dimension = 0;

  bool empty() const { return scale.empty(); }
  bool per_channel() const { return scale.size() > 1; }
};

struct Tensor {
  std::string name;
  DataType type = DataType::kFloat32;
  Shape shape;
  Quantization quantization;
  // Constant = its buffer really holds data (weights, biases, shapes).
  bool is_constant = false;
  // Variable tensors (RNN/SVDF state) persist across inferences.
  bool is_variable = false;
  int32_t buffer_index = 0;
  std::vector<uint8_t> data;  // constant data; empty for activations
  // Element count and byte size, checked against overflow at import.
  int64_t element_count = 1;
  int64_t byte_size = 0;
};

// Element count of a shape; nullopt on a negative dimension or when the
// product exceeds max_elements.
std::optional<int64_t> checked_element_count(const Shape& shape, int64_t max_elements);

std::string shape_to_string(const Shape& shape);  // "1x96x96x3"

}  // namespace dmo

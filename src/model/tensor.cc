#include "dmo/model/tensor.h"

namespace dmo {

std::optional<int64_t> checked_element_count(const Shape& shape, int64_t max_elements) {
  int64_t count = 1;
  for (int32_t dim : shape) {
    if (dim < 0) return std::nullopt;
    if (dim == 0) return int64_t{0};
  }
  for (int32_t dim : shape) {
    if (count > max_elements / dim) return std::nullopt;
    count *= dim;
  }
  return count;
}

std::string shape_to_string(const Shape& shape) {
  std::string text;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) text += 'x';
    text += std::to_string(shape[i]);
  }
  return text;
}

}  // namespace dmo

// A tensor as a kernel sees it: its description and where its bytes are.
#pragma once

#include <cstdint>

#include "dmo/model/tensor.h"

namespace dmo {

struct TensorRef {
  const Tensor* tensor = nullptr;
  uint8_t* data = nullptr;  // in the arena, in constant data, or in persistent storage
  int32_t index = -1;       // tensor index in the subgraph
  bool is_output = false;   // written by the op being run
  bool in_arena = false;    // part of the planned arena (may be shared with others)

  const Shape& shape() const { return tensor->shape; }
  DataType type() const { return tensor->type; }
  int64_t elements() const { return tensor->element_count; }
  int32_t dim(size_t i) const { return tensor->shape[i]; }
  size_t rank() const { return tensor->shape.size(); }
};

}  // namespace dmo

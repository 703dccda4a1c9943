// A tensor as a kernel sees it: its description and where its bytes are.
// It may be a view: the tensor's elements stored with strides inside a
// larger tensor (a producer writing straight into its slice of a
// concatenation), so kernels index it densely and never know.
#pragma once

#include <cstdint>

#include "dmo/model/tensor.h"

namespace dmo {

struct TensorRef {
  const Tensor* tensor = nullptr;
  uint8_t* data = nullptr;  // first element: in the arena, in constant data, or in persistent storage
  int32_t index = -1;       // tensor index in the subgraph
  bool is_output = false;   // written by the op being run
  bool in_arena = false;    // part of the planned arena (may be shared with others)
  // Per dimension, the distance in elements between neighbours in storage;
  // nullptr for a dense tensor (row-major, NHWC). Owned by whoever built the
  // reference (the interpreter keeps its schedule's views).
  const int64_t* strides = nullptr;

  const Shape& shape() const { return tensor->shape; }
  DataType type() const { return tensor->type; }
  int64_t elements() const { return tensor->element_count; }
  int64_t byte_size() const { return tensor->byte_size; }
  int32_t dim(size_t i) const { return tensor->shape[i]; }
  size_t rank() const { return tensor->shape.size(); }

  // Where element `i` of the dense row-major order is stored, in elements from `data`.
  int64_t storage_index(int64_t i) const {
    if (strides == nullptr) return i;
    int64_t at = 0;
    for (size_t d = tensor->shape.size(); d-- > 0;) {
      const int64_t extent = tensor->shape[d];
      at += (i % extent) * strides[d];
      i /= extent;
    }
    return at;
  }
};

}  // namespace dmo

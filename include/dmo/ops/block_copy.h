// Block copies: the memcpy and memmove of TFLM's copying kernels (RESHAPE,
// SQUEEZE, CONCATENATION, STRIDED_SLICE with unit inner stride). C leaves
// the direction of such a copy unspecified, so a copy is only safe when its
// source and destination are disjoint or coincide exactly: the checking
// policy (ops/memory_policy.h) treats any other overlap as a clobber, and
// the address-only policy folds a copy as all its stores before all its
// loads, the worst order C allows.
#pragma once

#include <cstdint>
#include <optional>

#include "dmo/ops/tensor_ref.h"

namespace dmo {

// `count` elements of `element_size` bytes from element `from_index` of
// `from` to element `to_index` of `to`, either tensor possibly a view.
struct BlockCopy {
  const TensorRef& to;
  int64_t to_index;
  const TensorRef& from;
  int64_t from_index;
  int64_t count;
  int64_t element_size;
};

// When the copy's destination covers some of its source bytes without
// being the very same bytes, the offset within the source tensor of the
// first source byte covered; nullopt for disjoint or identical ranges.
// Views are slices of a row-major tensor, so their element addresses ascend.
std::optional<int64_t> first_overlapped_source_byte(const BlockCopy& copy);

}  // namespace dmo

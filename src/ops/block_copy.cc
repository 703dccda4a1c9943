#include "dmo/ops/block_copy.h"

#include <algorithm>

namespace dmo {

namespace {

const uint8_t* element_address(const TensorRef& t, int64_t i, int64_t element_size) {
  return t.data + t.storage_index(i) * element_size;
}

}  // namespace

std::optional<int64_t> first_overlapped_source_byte(const BlockCopy& c) {
  if (c.count <= 0 || c.to.data == nullptr || c.from.data == nullptr) return std::nullopt;
  const int64_t e = c.element_size;
  if (c.to.strides == nullptr && c.from.strides == nullptr) {
    const uint8_t* to = element_address(c.to, c.to_index, e);
    const uint8_t* from = element_address(c.from, c.from_index, e);
    const int64_t bytes = c.count * e;
    if (to == from || to + bytes <= from || from + bytes <= to) return std::nullopt;
    return c.from_index * e + std::max<int64_t>(to - from, 0);
  }
  // A view: compare element by element. Identical when every element lands
  // on itself; otherwise sweep both ascending address lists for a meeting.
  bool identical = true;
  for (int64_t i = 0; i < c.count && identical; ++i) {
    identical = element_address(c.to, c.to_index + i, e) == element_address(c.from, c.from_index + i, e);
  }
  if (identical) return std::nullopt;
  int64_t i = 0, j = 0;
  while (i < c.count && j < c.count) {
    const uint8_t* to = element_address(c.to, c.to_index + i, e);
    const uint8_t* from = element_address(c.from, c.from_index + j, e);
    if (to + e <= from) {
      ++i;
    } else if (from + e <= to) {
      ++j;
    } else {
      return (c.from_index + j) * e + std::max<int64_t>(to - from, 0);
    }
  }
  return std::nullopt;
}

}  // namespace dmo

#include "dmo/ops/padding.h"

#include <algorithm>

namespace dmo {

int32_t dilated_filter_size(int32_t filter, int32_t dilation) { return (filter - 1) * dilation + 1; }

int32_t window_output_size(Padding padding, int32_t in, int32_t filter, int32_t stride, int32_t dilation) {
  if (padding == Padding::kSame) return (in + stride - 1) / stride;
  return (in + stride - dilated_filter_size(filter, dilation)) / stride;
}

int32_t window_padding_before(int32_t in, int32_t filter, int32_t stride, int32_t dilation, int32_t out) {
  int32_t total = (out - 1) * stride + dilated_filter_size(filter, dilation) - in;
  return std::max(total, 0) / 2;
}

}  // namespace dmo

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

TapSpan taps_inside(int64_t origin, int32_t dilation, int32_t filter, int32_t extent) {
  TapSpan span{filter, -1};
  for (int32_t k = 0; k < filter; ++k) {
    const int64_t at = origin + int64_t{k} * dilation;
    if (at < 0 || at >= extent) continue;
    span.first = std::min(span.first, k);
    span.last = k;
  }
  return span;
}

}  // namespace dmo

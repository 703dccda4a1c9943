// Which taps of a window fall inside the input: computed once per output
// pixel by the windowed kernels' loop nests (padding taps read nothing).
#pragma once

#include <algorithm>
#include <cstdint>

namespace dmo {

// The first and last taps k of a window, origin + k * dilation for k in
// [0, filter), that fall inside an input `extent` long (padding taps read
// nothing); first > last when none does.
struct TapSpan {
  int32_t first = 0, last = -1;
};

inline TapSpan taps_inside(int64_t origin, int32_t dilation, int32_t filter, int32_t extent) {
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

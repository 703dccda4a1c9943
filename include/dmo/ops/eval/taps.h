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

// The same span in closed form with 32-bit arithmetic, for the device
// kernels (a Cortex-M has no 64-bit registers; SDIV is one instruction).
// dilation >= 1.
inline TapSpan taps_inside_closed_form(int32_t origin, int32_t dilation, int32_t filter, int32_t extent) {
  // first: the least k >= 0 with origin + k * dilation >= 0.
  const int32_t first = origin >= 0 ? 0 : (-origin + dilation - 1) / dilation;
  // last: the greatest k < filter with origin + k * dilation <= extent - 1.
  const int32_t room = extent - 1 - origin;
  if (room < 0 || first >= filter) return TapSpan{filter, -1};
  const int32_t last = std::min(filter - 1, room / dilation);
  if (last < first) return TapSpan{filter, -1};
  return TapSpan{first, last};
}

}  // namespace dmo

// The part of its output one evaluation of a kernel computes: a band of rows
// and columns (NHWC dimensions 1 and 2). Padding and input positions still
// come from the whole output's geometry, so every element of a region is
// computed exactly as in a whole-output run: running the regions of a tiling
// one after another gives the whole output's bytes. Operation splitting and
// patch-based execution are built on this.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

namespace dmo {

struct IndexRange {
  int32_t begin = 0, end = 0;
  int32_t size() const { return end > begin ? end - begin : 0; }
};

struct OutputRegion {
  static constexpr int32_t kToEnd = std::numeric_limits<int32_t>::max();
  int32_t row_begin = 0, row_end = kToEnd;
  int32_t col_begin = 0, col_end = kToEnd;

  bool is_whole() const { return row_begin == 0 && row_end == kToEnd && col_begin == 0 && col_end == kToEnd; }
  // The region's rows (or columns) of an output `extent` long, clipped to it.
  IndexRange rows(int32_t extent) const { return clip(row_begin, row_end, extent); }
  IndexRange cols(int32_t extent) const { return clip(col_begin, col_end, extent); }

 private:
  static IndexRange clip(int32_t begin, int32_t end, int32_t extent) {
    return {std::clamp(begin, int32_t{0}, extent), std::clamp(end, int32_t{0}, extent)};
  }
};

}  // namespace dmo

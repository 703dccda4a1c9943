// Operation splitting: a chain of consecutive ops run tile by tile, each
// tile computing a band of the chain's last output and, for it, the band of
// every intermediate it needs (halo rows computed again by the next tile),
// so that only a band of each intermediate is ever in memory. With column
// tiles too, each band of rows is cut into patches along the width (halo
// columns computed again as well), run left to right, band after band.
#pragma once

#include <cstdint>

namespace dmo {

enum class SplitAxis { kHeight };

struct SplitStage {
  int32_t first_op = 0;
  int32_t last_op = 0;  // inclusive
  SplitAxis axis = SplitAxis::kHeight;
  int32_t tiles = 1;         // along the height
  int32_t column_tiles = 1;  // along the width, per band of rows

  int32_t tile_count() const { return tiles * column_tiles; }
  // The axes it cuts, as reports and plan files name them.
  const char* axes() const { return column_tiles > 1 ? "height and width" : "height"; }
};

}  // namespace dmo

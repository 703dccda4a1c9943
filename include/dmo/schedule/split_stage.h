// Operation splitting: a chain of consecutive ops run tile by tile, each
// tile computing a band of the chain's last output and, for it, the band of
// every intermediate it needs (halo rows computed again by the next tile),
// so that only a band of each intermediate is ever in memory.
#pragma once

#include <cstdint>

namespace dmo {

enum class SplitAxis { kHeight };

struct SplitStage {
  int32_t first_op = 0;
  int32_t last_op = 0;  // inclusive
  SplitAxis axis = SplitAxis::kHeight;
  int32_t tiles = 1;
};

}  // namespace dmo

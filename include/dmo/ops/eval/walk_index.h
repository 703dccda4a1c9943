// Loop indices in a kernel's walking order (ops/walk_order.h says why a
// kernel walks descending): freestanding, for every loop nest.
#pragma once

#include <cstdint>

#include "dmo/ops/output_region.h"

namespace dmo {

// Index `i` of a loop of `n` steps in the walking order.
constexpr int32_t walk_index(int32_t i, int32_t n, bool descending) { return descending ? n - 1 - i : i; }

// Step `i` of a loop over `range` in the walking order.
constexpr int32_t walk_index(int32_t i, IndexRange range, bool descending) {
  return descending ? range.end - 1 - i : range.begin + i;
}

}  // namespace dmo

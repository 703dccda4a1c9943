// Where a buffer may start given the open ranges (lo, hi) of starts that
// would make it collide with buffers already placed: the lowest or highest
// free multiple of an alignment within limits.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace dmo {

using StartRanges = std::vector<std::pair<int64_t, int64_t>>;

// The lowest multiple of `alignment` at or above `from` in none of the
// ranges (may sort them).
int64_t lowest_free_start(StartRanges& forbidden, int64_t alignment, int64_t from);

// The highest multiple of `alignment` in [from, to] in none of the ranges;
// nothing when there is none.
std::optional<int64_t> highest_free_start(const StartRanges& forbidden, int64_t alignment, int64_t from, int64_t to);

}  // namespace dmo

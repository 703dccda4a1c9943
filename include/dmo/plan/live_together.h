// Which buffers are live together: per buffer of non-zero size, the others
// of non-zero size whose lifetimes intersect, in buffer order. Found by a
// sweep over first uses, O(n log n) plus one step per pair, where comparing
// every pair would be O(n^2) on graphs of thousands of ops.
#pragma once

#include <cstdint>
#include <vector>

#include "dmo/plan/memory_problem.h"

namespace dmo {

std::vector<std::vector<int32_t>> buffers_live_together(const MemoryProblem& problem);

}  // namespace dmo

// A re-implementation of TFLite Micro's GreedyMemoryPlanner, the baseline
// users get today: sizes rounded up to 16 bytes; buffers sorted by size,
// largest first, ties in reverse buffer order; each placed at the lowest
// offset that collides with no placed buffer whose lifetime intersects.
#pragma once

#include "dmo/plan/memory_problem.h"
#include "dmo/plan/plan.h"

namespace dmo {

constexpr int64_t kTflmBufferAlignment = 16;

Plan plan_tflm_greedy(const MemoryProblem& problem);

}  // namespace dmo

// A re-implementation of TFLite Micro's GreedyMemoryPlanner, the baseline
// users get today: sizes rounded up to 16 bytes; buffers with a fixed offset
// (TFLM's offline-planned tensors) put exactly there first, in buffer order
// and unchecked; then the others sorted by size, largest first, ties in
// reverse buffer order, each at the lowest offset that collides with no
// placed buffer whose lifetime intersects. Beyond TFLM: a buffer's own
// alignment, and alias groups placed as one piece (keyed by their root).
#pragma once

#include <cstdint>

#include "dmo/plan/memory_problem.h"
#include "dmo/plan/plan.h"

namespace dmo {

constexpr int64_t kTflmBufferAlignment = 16;

// `alignment`: TFLM's buffer alignment, what sizes are rounded up to and
// offsets are multiples of for buffers that name no alignment of their own.
Plan plan_tflm_greedy(const MemoryProblem& problem, int64_t alignment = kTflmBufferAlignment);

}  // namespace dmo

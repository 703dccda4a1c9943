// What TFLM's allocator makes of a plan. TFLM takes offline offsets as
// given, rounds every buffer's size up to its 16-byte alignment (offline
// buffers included) and places the buffers it plans itself, among them
// every kernel's scratch buffers, with its greedy first fit around them.
// The non-persistent head it needs is max(offset + size rounded up to 16).
#pragma once

#include <cstdint>
#include <vector>

#include "dmo/plan/memory_problem.h"
#include "dmo/plan/plan.h"
#include "dmo/plan/tflm_greedy_planner.h"

namespace dmo {

// TFLM's plan when the buffers with an offset >= 0 in `offsets` (one per
// buffer of `problem`) are offline-planned there and TFLM plans the others
// (-1). Overlap pairs and aliases are dmo's and play no part; `alignment`
// is TFLM's buffer alignment (larger only to meet a plan's own).
Plan plan_tflm_with_offsets(const MemoryProblem& problem, const std::vector<int64_t>& offsets,
                            int64_t alignment = kTflmBufferAlignment);

// `plan` as TFLM lays it out when its tensor buffers are exported as
// offline offsets: tensors where `plan` puts them, buffers that are no
// tensor (scratch) where TFLM's first fit puts them, and arena_size the
// head TFLM needs. Keeps the plan's planner name and walks.
Plan tflm_layout(const MemoryProblem& problem, const Plan& plan, int64_t alignment = kTflmBufferAlignment);

// The offsets of `plan` for its tensor buffers, -1 for the others.
std::vector<int64_t> tensor_offsets(const MemoryProblem& problem, const Plan& plan);

}  // namespace dmo

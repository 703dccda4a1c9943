// Reference figures every plan is judged against.
#pragma once

#include <cstdint>
#include <vector>

#include "dmo/plan/memory_problem.h"

namespace dmo {

// Every buffer its own memory: the sum of their sizes.
int64_t naive_bytes(const MemoryProblem& problem);

// Bytes live while each op runs (its inputs and outputs included). Buffers
// created before op 0 count from op 0.
std::vector<int64_t> live_bytes_per_op(const MemoryProblem& problem);

// No plan without overlaps can use less: the largest per-op live total.
int64_t lower_bound_bytes(const MemoryProblem& problem);

}  // namespace dmo

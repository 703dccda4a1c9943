// A CONCATENATION whose input sits exactly at its block of the output
// copies the block onto itself: whatever order its memcpy reads and writes
// in, every byte keeps its value, so the input and the output may share
// those bytes. dmo's in-place tiles are exported this way (TFLM's tensors
// are dense and it still runs the op), and a placement read back from such
// a file must be judged so.
#pragma once

#include <cstdint>
#include <vector>

#include "dmo/model/graph.h"
#include "dmo/plan/memory_problem.h"
#include "dmo/schedule/schedule.h"

namespace dmo {

// Adds an alias for each input of a CONCATENATION step of `schedule` that
// `offsets` (one per buffer of `problem`) place exactly at its block of
// the output: blocks along an axis with no larger dimension above 1 (each
// block contiguous), the same type and quantization, no fused activation.
void add_self_copy_aliases(const Graph& graph, const Schedule& schedule, MemoryProblem& problem,
                           const std::vector<int64_t>& offsets);

}  // namespace dmo

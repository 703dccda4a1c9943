// Buffers of accelerator custom ops (ethos-u): their command streams
// address the op's inputs and outputs at the offsets the accelerator's
// compiler planned, in ways dmo's lifetimes cannot see (Vela puts the
// input and output inside the NPU's scratch area), so dmo must not move them.
#pragma once

#include <cstdint>

#include "dmo/model/graph.h"
#include "dmo/plan/memory_problem.h"

namespace dmo {

// True for a custom op run by an accelerator with its own memory plan.
bool is_accelerator_op(const Op& op);

// Fixes the buffers of `problem` (one per planned tensor of subgraph 0)
// that are inputs or outputs of accelerator ops at the offsets of the
// model's OfflineMemoryAllocation. Returns how many it fixed (none when the
// model has no offline plan).
int32_t fix_accelerator_buffers(const Graph& graph, MemoryProblem& problem);

}  // namespace dmo

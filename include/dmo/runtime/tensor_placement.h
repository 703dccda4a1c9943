// Where each tensor of subgraph 0 lives in the arena.
#pragma once

#include <cstdint>
#include <vector>

#include "dmo/model/graph.h"
#include "dmo/plan/memory_problem.h"
#include "dmo/plan/plan.h"

namespace dmo {

struct TensorPlacement {
  std::vector<int64_t> offsets;  // per tensor; -1 = not in the arena
  int64_t arena_size = 0;
  // Ops whose kernels must walk their output descending for this placement
  // to be safe (an output placed above the input it overlaps).
  std::vector<int32_t> descending_ops;
};

// Every planned tensor in bytes of its own (16-byte aligned): nothing shared.
TensorPlacement unshared_placement(const Subgraph& subgraph);

// The offsets a plan gives the buffers of `problem`.
TensorPlacement placement_from_plan(const Subgraph& subgraph, const MemoryProblem& problem, const Plan& plan);

}  // namespace dmo

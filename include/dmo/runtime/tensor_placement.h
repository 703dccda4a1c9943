// Where each tensor lives in the arena: the tensors of subgraph 0, and, for
// a plan of a model of several subgraphs, the other subgraphs' tensors after
// them in flat order (model/model_timeline.h). Tensors of subgraphs the
// placement leaves out get bytes of their own outside the arena.
#pragma once

#include <cstdint>
#include <vector>

#include "dmo/model/graph.h"
#include "dmo/plan/memory_problem.h"
#include "dmo/plan/plan.h"

namespace dmo {

// A kernel's scratch buffer where the plan put it: live during its op only.
struct ScratchPlacement {
  int32_t op = -1;
  int64_t offset = 0;
  int64_t bytes = 0;
};

struct TensorPlacement {
  std::vector<int64_t> offsets;  // per tensor (flat); -1 = not in the arena
  int64_t arena_size = 0;
  // Ops whose kernels must walk their output descending for this placement
  // to be safe (an output placed above the input it overlaps).
  std::vector<int32_t> descending_ops;
  // The kernels' scratch buffers the plan placed, in request order (none
  // for a placement read from a file).
  std::vector<ScratchPlacement> scratch;
};

// Every planned tensor in bytes of its own (16-byte aligned): nothing shared.
TensorPlacement unshared_placement(const Subgraph& subgraph);

// The offsets a plan gives the buffers of `problem` (per tensor of
// `subgraph`, or per flat tensor when the problem covers more).
TensorPlacement placement_from_plan(const Subgraph& subgraph, const MemoryProblem& problem, const Plan& plan);

}  // namespace dmo

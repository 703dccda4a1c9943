// The scratch buffers TFLM's kernels request in Prepare
// (RequestScratchBufferInArena). TFLM's planner places them like tensors,
// each live only during the op that requested it, in the arena's
// non-persistent head, so every arena figure has to leave them room.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dmo/model/graph.h"
#include "dmo/plan/memory_problem.h"

namespace dmo {

struct ScratchBuffer {
  int32_t op = 0;      // op index in the subgraph
  int64_t bytes = 0;   // as the kernel requests it (TFLM rounds it up to 16 when it plans)
  std::string kernel;  // the TFLM kernel and type path, e.g. "SVDF int8 (svdf_common.cc)"
  std::string buffer;  // what the kernel keeps in it
};

// The buffers TFLM's reference kernel for op `op` of `subgraph` requests,
// in request order; none for ops whose kernels request none. Throws
// dmo::Error naming the op when an operand the size depends on is missing
// or has a shape TFLM's kernel would reject.
std::vector<ScratchBuffer> tflm_scratch_buffers(const Subgraph& subgraph, int32_t op, const std::string& source);

// The same for every op, in op order (TFLM's request order).
std::vector<ScratchBuffer> tflm_scratch_buffers(const Subgraph& subgraph, const std::string& source);

// Appends one buffer per scratch buffer: no tensor (kNoTensor), live only
// at `step_of_op[op]`, on TFLM's 16-byte alignment.
void add_scratch_buffers(MemoryProblem& problem, const std::vector<ScratchBuffer>& scratch,
                         const std::vector<int32_t>& step_of_op);

}  // namespace dmo

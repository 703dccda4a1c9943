// The planning problem: buffers with sizes and lifetimes, plus the overlap
// pairs an optimising planner may use. Planners see only this, never a Graph.
#pragma once

#include <cstdint>
#include <vector>

#include "dmo/model/graph.h"
#include "dmo/model/lifetime.h"

namespace dmo {

struct BufferRequest {
  int32_t tensor = 0;  // tensor index in the subgraph
  int64_t size = 0;    // bytes
  Lifetime lifetime;
};

// The output buffer of an op may overlap a dying input buffer in one of two
// ways, and the op's kernel must walk its output accordingly:
//  - ascending (TFLite's order): the output below the input, its end over
//    the input's start by up to `safe_overlap` bytes, i.e. the input starts
//    at least |O| - safe_overlap bytes above the output's start;
//  - descending (ops/walk_order.h): the output above the input, over the
//    input's end by up to `safe_overlap_descending` bytes, i.e. the output
//    starts at least |I| - safe_overlap_descending bytes above the input's.
// 0 forbids that side.
struct OverlapPair {
  int32_t op = 0;
  int32_t output_buffer = 0;  // indices into MemoryProblem::buffers
  int32_t input_buffer = 0;
  int64_t safe_overlap = 0;
  int64_t safe_overlap_descending = 0;
};

struct MemoryProblem {
  int32_t op_count = 0;
  std::vector<BufferRequest> buffers;
  std::vector<OverlapPair> overlaps;
};

// Buffers for the tensors TFLM plans in one subgraph, in tensor order (the
// order TFLM adds them to its planner).
MemoryProblem build_memory_problem(const Subgraph& subgraph);

}  // namespace dmo

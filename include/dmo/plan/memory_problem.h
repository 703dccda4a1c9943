// The planning problem: buffers with sizes and lifetimes, plus the overlap
// pairs an optimising planner may use. Planners see only this, never a Graph.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "dmo/model/graph.h"
#include "dmo/model/lifetime.h"
#include "dmo/model/limits.h"
#include "dmo/model/model_timeline.h"

namespace dmo {

struct BufferRequest {
  // Tensor index in the subgraph; kNoTensor for a buffer that holds no
  // tensor (a kernel's scratch buffer, placed by TFLM when it runs).
  int32_t tensor = 0;
  int64_t size = 0;    // bytes
  Lifetime lifetime;
  // Bytes the offset must be a multiple of; 0 takes the planner's default.
  int64_t alignment = 0;
  // Where the buffer must sit (e.g. an offline plan's offset): planners put
  // it exactly there first and plan the others around it.
  std::optional<int64_t> fixed_offset{};
};

// Buffer `buffer` is a view into `base`: it lives at offset(base) + offset,
// e.g. a producer writing straight into its slice of a concatenation.
// Planners place it with its base; the two are never a collision.

struct BufferAlias {
  int32_t buffer = 0;  // indices into MemoryProblem::buffers
  int32_t base = 0;
  int64_t offset = 0;
};

// The output buffer of an op may overlap a dying input buffer in one of two
// ways, and the op's kernel must walk its output accordingly:
//  - ascending (TFLite's order): the output below the input, its end over
//    the input's start by up to `safe_overlap` bytes, i.e. the input starts
//    at least |O| - safe_overlap bytes above the output's start;
//  - descending (ops/walk_order.h): the output above the input, over the
//    input's end by up to `safe_overlap_descending` bytes, i.e. the output
//    starts at least |I| - safe_overlap_descending bytes above the input's.
// 0 forbids that side. An op may have several pairs (e.g. ADD with two
// dying inputs, or several outputs); its kernel walks one way for all.
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
  std::vector<BufferAlias> aliases;
};

// Buffers for the tensors TFLM plans in one subgraph, in tensor order (the
// order TFLM adds them to its planner).
MemoryProblem build_memory_problem(const Subgraph& subgraph);
// The same with given lifetimes (one per tensor, time 0..step_count-1),
// for an execution order other than the file's.
MemoryProblem build_memory_problem(const Subgraph& subgraph, const std::vector<Lifetime>& lifetimes,
                                   int32_t step_count);

// The problem over every subgraph of a model with several, as TFLM's
// allocator builds it (model/model_timeline.h): a buffer per planned tensor
// of each subgraph in flat tensor order (`tensor` is the flat index), time
// the timeline's. For a model of one subgraph, build_memory_problem(main()).
MemoryProblem build_model_memory_problem(const Graph& graph, const ModelTimeline& timeline);

// The problem TFLM solves: build_model_memory_problem, with the offsets of
// the model's OfflineMemoryAllocation (those >= 0) as fixed offsets. TFLM
// places those tensors exactly there, unchecked, and plans the -1 ones
// around them.
MemoryProblem build_tflm_memory_problem(const Graph& graph);

// Whether some buffer has a fixed offset (an offline plan, accelerator
// ops): bytes there may be shared unchecked, so no lower bound holds.
inline bool has_fixed_offsets(const MemoryProblem& problem) {
  return std::any_of(problem.buffers.begin(), problem.buffers.end(),
                     [](const BufferRequest& b) { return b.fixed_offset.has_value(); });
}

// The alignment a buffer's offset needs under a planner whose default is
// `default_alignment`.
inline int64_t alignment_of(const BufferRequest& buffer, int64_t default_alignment) {
  return buffer.alignment > 0 ? buffer.alignment : default_alignment;
}

}  // namespace dmo

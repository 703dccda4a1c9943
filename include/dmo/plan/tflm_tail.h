// TFLM's persistent section (the arena's "tail") on a 32-bit target: what
// MicroAllocator and the kernels take from the arena's end and keep for
// the interpreter's life, beside the head dmo plans. TFLM's
// MicroInterpreter::arena_used_bytes() is head + tail, so a user gives the
// interpreter that much. The tail is replayed allocation by allocation in
// TFLM's order (SingleArenaBufferAllocator::AllocatePersistentBuffer moves
// the tail down by the size, then down to the alignment), from an arena
// whose end is 16-byte aligned.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dmo/model/graph.h"

namespace dmo {

// One allocation from the tail: size and alignment in bytes.
struct PersistentRequest {
  int64_t bytes = 0;
  int64_t alignment = 4;
};

// What one op allocates from the tail, by phase: its builtin options parsed
// into TfLite*Params (MicroInterpreter::PrepareNodeAndRegistrationData-
// FromFlatbuffer), the kernel's Init and its Prepare.
struct OpPersistent {
  std::vector<PersistentRequest> params, init, prepare;
};

// Which of TFLM's kernels the firmware links: the reference kernels, or
// the CMSIS-NN glue (its allocations are the same with and without
// ARM_MATH_DSP on a core without MVE).
enum class TailKernels { kReference, kCmsisNn };

// What op `op`'s kernel allocates from the tail; nothing when dmo does not
// know the kernel's allocations.
std::optional<OpPersistent> tflm_op_persistent(const Subgraph& subgraph, int32_t op, TailKernels kernels);

// The tail, by what holds it (each part with the alignment padding its
// allocations cost).
struct TflmTail {
  int64_t bytes = 0;
  int64_t runtime_bytes = 0;         // allocator, memory planner, per-subgraph tables
  int64_t tensor_bytes = 0;          // a TfLiteEvalTensor per tensor; the interpreter's input and output TfLiteTensors
  int64_t node_bytes = 0;            // a NodeAndRegistration per op and its builtin params
  int64_t kernel_bytes = 0;          // the kernels' Init and Prepare (OpData, per-channel tables, LUTs)
  int64_t scratch_handle_bytes = 0;  // one handle per scratch buffer request
  int64_t variable_bytes = 0;        // variable tensors TFLM places itself
};

// The tail TFLM allocates for `graph` linked with `kernels`, whose
// ops request `scratch_requests` scratch buffers in all, with `offline` as
// the file's OfflineMemoryAllocation (the variable tensors it places are in
// the head). Nothing when some op's allocations are unknown (`unknown_op`,
// if given, names the first: "subgraph 0 op 7 (SVDF)").
std::optional<TflmTail> predict_tflm_tail(const Graph& graph, TailKernels kernels, int64_t scratch_requests,
                                          const std::optional<OfflinePlan>& offline,
                                          std::string* unknown_op = nullptr);

}  // namespace dmo

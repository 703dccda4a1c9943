#include "dmo/pipeline/tflm_arena.h"

namespace dmo {

TflmArena tflm_arena(const Graph& graph, KernelFamily family, int64_t head_bytes, int64_t scratch_requests,
                     const std::optional<OfflinePlan>& offline) {
  TflmArena a;
  a.family = family;
  a.head_bytes = head_bytes;
  a.scratch_requests = scratch_requests;
  a.tail = predict_tflm_tail(graph, is_cmsis_nn(family) ? TailKernels::kCmsisNn : TailKernels::kReference,
                             scratch_requests, offline, &a.unknown_op);
  return a;
}

}  // namespace dmo

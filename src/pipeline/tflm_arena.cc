#include "dmo/pipeline/tflm_arena.h"

#include "dmo/pipeline/kernel_scratch_buffers.h"
#include "dmo/plan/tflm_greedy_planner.h"

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

std::vector<TflmArena> tflm_arenas(const Graph& graph, const PlanResult& result) {
  std::vector<KernelFamily> families = result.families;
  if (families.empty()) families = {KernelFamily::kTflmReference};
  std::vector<TflmArena> out;
  for (KernelFamily family : families) {
    if (families.size() == 1) {  // the plan's own TFLM problem is that family's
      out.push_back(tflm_arena(graph, family, result.tflm_greedy.arena_size,
                               static_cast<int64_t>(result.scratch_buffers.size()), graph.offline_plan));
      continue;
    }
    const std::vector<ScratchBuffer> scratch = kernel_scratch_buffers(graph, family);
    const int64_t head = plan_tflm_greedy(tflm_problem_with_scratch(graph, scratch)).arena_size;
    out.push_back(tflm_arena(graph, family, head, static_cast<int64_t>(scratch.size()), graph.offline_plan));
  }
  return out;
}

}  // namespace dmo

#include "dmo/pipeline/accelerator_buffers.h"

#include <vector>

namespace dmo {

bool is_accelerator_op(const Op& op) { return op.is(OpKind::kCustom) && op.custom_code == "ethos-u"; }

int32_t fix_accelerator_buffers(const Graph& graph, MemoryProblem& problem) {
  if (!graph.offline_plan) return 0;
  const Subgraph& sg = graph.main();
  std::vector<char> accelerator_tensor(sg.tensors.size(), 0);
  for (const Op& op : sg.ops) {
    if (!is_accelerator_op(op)) continue;
    for (const std::vector<int32_t>* list : {&op.inputs, &op.outputs}) {
      for (int32_t t : *list) {
        if (t >= 0 && static_cast<size_t>(t) < sg.tensors.size()) accelerator_tensor[static_cast<size_t>(t)] = 1;
      }
    }
  }
  // Subgraph 0's tensors come first in the offline plan.
  const std::vector<int32_t>& offsets = graph.offline_plan->offsets;
  int32_t fixed = 0;
  for (BufferRequest& buffer : problem.buffers) {
    if (buffer.tensor == kNoTensor) continue;
    const auto t = static_cast<size_t>(buffer.tensor);
    if (t >= accelerator_tensor.size() || !accelerator_tensor[t] || t >= offsets.size() || offsets[t] < 0) continue;
    buffer.fixed_offset = offsets[t];
    ++fixed;
  }
  return fixed;
}

}  // namespace dmo

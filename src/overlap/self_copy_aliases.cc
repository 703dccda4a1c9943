#include "dmo/overlap/self_copy_aliases.h"

#include <algorithm>

#include "dmo/plan/buffers_by_tensor.h"

namespace dmo {

namespace {

bool copies_values(const Tensor& in, const Tensor& out) {
  return in.type == out.type && in.quantization.scale == out.quantization.scale &&
         in.quantization.zero_point == out.quantization.zero_point;
}

}  // namespace

void add_self_copy_aliases(const Graph& graph, const Schedule& schedule, MemoryProblem& problem,
                           const std::vector<int64_t>& offsets) {
  if (graph.subgraphs.size() > 1) return;
  const Subgraph& sg = graph.main();
  const std::vector<int32_t> buffer_of = buffers_by_tensor(problem, sg.tensors.size());
  auto aliased = [&](int32_t buffer) {
    return std::any_of(problem.aliases.begin(), problem.aliases.end(),
                       [&](const BufferAlias& a) { return a.buffer == buffer || a.base == buffer; });
  };
  for (const ScheduleStep& step : schedule.steps) {
    const Op& op = sg.ops[static_cast<size_t>(step.op)];
    const auto* params = std::get_if<ConcatenationParams>(&op.params);
    if (!op.is(OpKind::kConcatenation) || !params || params->activation != Activation::kNone) continue;
    if (op.outputs.size() != 1 || op.outputs[0] < 0) continue;
    const Tensor& out = sg.tensors[static_cast<size_t>(op.outputs[0])];
    const auto rank = static_cast<int32_t>(out.shape.size());
    const int32_t axis = params->axis < 0 ? params->axis + rank : params->axis;
    if (axis < 0 || axis >= rank || out.element_count == 0) continue;
    bool contiguous = true;
    for (int32_t d = 0; d < axis; ++d) contiguous = contiguous && out.shape[static_cast<size_t>(d)] == 1;
    const int32_t bo = buffer_of[static_cast<size_t>(op.outputs[0])];
    if (!contiguous || bo < 0 || offsets[static_cast<size_t>(bo)] < 0 || aliased(bo)) continue;
    int64_t block = 0;
    for (int32_t t : op.inputs) {
      if (t < 0) continue;
      const Tensor& in = sg.tensors[static_cast<size_t>(t)];
      const int32_t bi = buffer_of[static_cast<size_t>(t)];
      if (bi >= 0 && copies_values(in, out) && !aliased(bi) &&
          std::count(op.inputs.begin(), op.inputs.end(), t) == 1 &&
          offsets[static_cast<size_t>(bi)] == offsets[static_cast<size_t>(bo)] + block) {
        problem.aliases.push_back({bi, bo, block});
      }
      block += in.byte_size;
    }
  }
}

}  // namespace dmo

#include "dmo/schedule/schedule_lifetimes.h"

#include <algorithm>

namespace dmo {

std::vector<Lifetime> schedule_lifetimes(const Graph& graph, const Schedule& schedule) {
  const Subgraph& sg = graph.main();
  std::vector<Lifetime> lifetimes(sg.tensors.size());
  std::vector<char> created(sg.tensors.size(), 0);  // by an op's step, which overrides the graph's -1
  auto create = [&](int32_t tensor, int32_t time) { lifetimes[static_cast<size_t>(tensor)] = {time, time}; };
  auto use = [&](int32_t tensor, int32_t time) { lifetimes[static_cast<size_t>(tensor)].last = time; };

  for (int32_t t : sg.inputs) create(t, kBeforeFirstOp);
  for (int32_t t : sg.outputs) create(t, kBeforeFirstOp);
  const auto steps = static_cast<int32_t>(schedule.steps.size());
  for (int32_t i = 0; i < steps; ++i) {
    const Op& op = sg.ops[static_cast<size_t>(schedule.steps[static_cast<size_t>(i)].op)];
    for (int32_t t : op.outputs) {
      if (!created[static_cast<size_t>(t)]) create(t, i);
      created[static_cast<size_t>(t)] = 1;
    }
    for (int32_t t : op.inputs) {
      if (t != kNoTensor) use(t, i);
    }
    for (int32_t t : op.outputs) use(t, i);
  }
  for (int32_t t : sg.outputs) use(t, steps - 1);
  // A view and its base share bytes: each lives while either must.
  for (const TensorView& v : schedule.views) {
    Lifetime& view = lifetimes[static_cast<size_t>(v.tensor)];
    Lifetime& base = lifetimes[static_cast<size_t>(v.base)];
    const Lifetime joined{std::min(view.first, base.first), std::max(view.last, base.last)};
    view = base = joined;
  }
  return lifetimes;
}

}  // namespace dmo

#include "dmo/schedule/schedule_lifetimes.h"

#include <algorithm>

namespace dmo {

std::vector<Lifetime> schedule_lifetimes(const Graph& graph, const Schedule& schedule) {
  std::vector<int32_t> op_at_step;
  op_at_step.reserve(schedule.steps.size());
  for (const ScheduleStep& step : schedule.steps) op_at_step.push_back(step.op);
  std::vector<Lifetime> lifetimes = compute_lifetimes(graph.main(), op_at_step);
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

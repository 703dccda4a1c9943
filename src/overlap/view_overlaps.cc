#include "dmo/overlap/view_overlaps.h"

#include <algorithm>

namespace dmo {

void unuse_view_overlaps(const Schedule& schedule, std::vector<OpOverlap>& overlaps) {
  if (schedule.views.empty()) return;
  auto in_a_view = [&](int32_t t) {
    return std::any_of(schedule.views.begin(), schedule.views.end(),
                       [&](const TensorView& v) { return v.tensor == t || v.base == t; });
  };
  for (OpOverlap& o : overlaps) {
    const bool runs = std::any_of(schedule.steps.begin(), schedule.steps.end(),
                                  [&](const ScheduleStep& s) { return s.op == o.pair.op; });
    if (!runs || in_a_view(o.pair.output) || in_a_view(o.pair.input)) o.used_bytes = o.used_descending_bytes = 0;
  }
}

}  // namespace dmo

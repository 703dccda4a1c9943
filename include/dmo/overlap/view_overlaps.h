// Safe overlaps under views (schedule/schedule.h). An op's O_s is folded
// from the dense order of its output and input; a view stores its tensor
// strided inside its base, and the base's bytes around it are live with it,
// so no pair touching a view can be used as computed: such pairs are left
// out (O_s 0), as are the pairs of ops the schedule no longer runs (an
// in-place concatenation's). The checked run then proves the plan.
#pragma once

#include <vector>

#include "dmo/overlap/safe_overlaps.h"
#include "dmo/schedule/schedule.h"

namespace dmo {

void unuse_view_overlaps(const Schedule& schedule, std::vector<OpOverlap>& overlaps);

}  // namespace dmo

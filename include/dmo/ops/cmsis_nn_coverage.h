// Ops TFLM's cmsis_nn glue runs on a CMSIS-NN function whose access order
// dmo does not mirror yet. Their safe overlap under a cmsis family is
// unknown, so planning gives them none: a plan for a cmsis family must not
// borrow the reference kernel's order for them.
#pragma once

#include <optional>
#include <string>

#include "dmo/model/graph.h"

namespace dmo {

// The CMSIS-NN function the glue calls for `op` when dmo has no mirror of
// it (e.g. "arm_convolve_wrapper_s4"), else nothing.
std::optional<std::string> unmirrored_cmsis_nn_function(const Subgraph& subgraph, const Op& op);

}  // namespace dmo

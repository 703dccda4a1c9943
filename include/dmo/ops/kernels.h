// Every kernel dmo has: one loop nest each, templated over a memory policy
// (see runtime/memory_policy.h), in the loop order of TFLite's reference
// kernels. Defined and instantiated in src/ops/<op>/.
#pragma once

#include "dmo/runtime/op_context.h"

namespace dmo {

// Windowed and matrix ops.
// Element-wise, activation, pooling and softmax ops.
// Shape, copy and reduction ops.

}  // namespace dmo

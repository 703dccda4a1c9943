// DEPTHWISE_CONV_2D's shapes as TFLM's prepare checks them, shared by the
// reference kernel and the CMSIS-NN ones (the same checks and messages).
#pragma once

#include "dmo/ops/eval/depthwise_loops.h"
#include "dmo/ops/op_context.h"

namespace dmo {

// Checks the op's shapes and options (failing with a message naming the op)
// and returns its geometry; padding from the model's output size.
DepthwiseGeometry depthwise_geometry(const OpContext& ctx, const DepthwiseConv2DParams& params);

}  // namespace dmo

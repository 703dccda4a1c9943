// DEPTHWISE_CONV_2D's shapes as TFLM's prepare checks them, shared by the
// reference kernel and the CMSIS-NN ones (the same checks and messages).
#pragma once

#include "dmo/ops/op_context.h"

namespace dmo {

struct DepthwiseGeometry {
  int32_t batches = 0;
  int32_t input_height = 0, input_width = 0, input_depth = 0;
  int32_t filter_height = 0, filter_width = 0;
  int32_t output_height = 0, output_width = 0, output_depth = 0;
  int32_t depth_multiplier = 1;
  int32_t stride_height = 1, stride_width = 1;
  int32_t dilation_height = 1, dilation_width = 1;
  int32_t pad_height = 0, pad_width = 0;
};

// Checks the op's shapes and options (failing with a message naming the op)
// and returns its geometry; padding from the model's output size.
DepthwiseGeometry depthwise_geometry(const OpContext& ctx, const DepthwiseConv2DParams& params);

}  // namespace dmo

// What RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR share: TFLM's Prepare
// checks (a 4-D input, a constant INT32 size of two values, no
// align_corners together with half_pixel_centers) and the NHWC geometry.
#pragma once

#include <cstdint>

#include "dmo/ops/op_context.h"

namespace dmo {

struct ResizeGeometry {
  int64_t batches = 0, input_height = 0, input_width = 0, depth = 0;
  int64_t output_height = 0, output_width = 0;
  bool align_corners = false, half_pixel_centers = false;

  int64_t input_offset(int64_t b, int64_t y, int64_t x, int64_t c) const {
    return ((b * input_height + y) * input_width + x) * depth + c;
  }
  int64_t output_offset(int64_t b, int64_t y, int64_t x, int64_t c) const {
    return ((b * output_height + y) * output_width + x) * depth + c;
  }
};

// Fails naming the problem unless the op's operands resize as TFLM's
// Prepare accepts; also requires positive sizes and an output
// [batches, height, width, depth] of the input's type.
ResizeGeometry resize_geometry(const OpContext& ctx, bool align_corners, bool half_pixel_centers);

}  // namespace dmo

// What RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR share: TFLM's Prepare
// checks (a 4-D input, a constant INT32 size of two values, no
// align_corners together with half_pixel_centers) and the NHWC shape
// (ops/eval/resize_shape.h).
#pragma once

#include <cstdint>

#include "dmo/ops/eval/resize_shape.h"
#include "dmo/ops/op_context.h"

namespace dmo {

ResizeShape resize_geometry(const OpContext& ctx, bool align_corners, bool half_pixel_centers);

}  // namespace dmo

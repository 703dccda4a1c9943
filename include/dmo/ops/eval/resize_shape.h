// The shape the RESIZE_* nests walk: NHWC input and output of one depth,
// and TFLite's two coordinate options. Freestanding.
#pragma once

#include <cstdint>

namespace dmo {

struct ResizeShape {
  int32_t batches = 0, input_height = 0, input_width = 0, output_height = 0, output_width = 0;
  int64_t depth = 0;
  bool align_corners = false, half_pixel_centers = false;

  int64_t input_offset(int64_t b, int64_t y, int64_t x, int64_t c) const {
    return ((b * input_height + y) * input_width + x) * depth + c;
  }
  int64_t output_offset(int64_t b, int64_t y, int64_t x, int64_t c) const {
    return ((b * output_height + y) * output_width + x) * depth + c;
  }

  template <class F>
  void each_field(F&& f) const {
    f(batches), f(input_height), f(input_width), f(output_height), f(output_width), f(depth), f(align_corners),
        f(half_pixel_centers);
  }
};

}  // namespace dmo

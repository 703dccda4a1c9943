// RESIZE_NEAREST_NEIGHBOR's loop nest, as TFLite's
// reference_ops::ResizeNearestNeighbor walks it: per output pixel in order
// (batch, y, x), one block copy of `depth` elements from the nearest input
// pixel (GetNearestNeighbor per coordinate, in float as TFLite computes
// it). Freestanding: the host kernel and generated code run this nest.
#pragma once

#include <cmath>
#include <cstdint>

#include "dmo/ops/eval/resize_shape.h"

namespace dmo {

// GetNearestNeighbor: the input coordinate output coordinate `value` copies.
inline int32_t nearest_neighbor(int32_t value, int32_t input_size, int32_t output_size, bool align_corners,
                                bool half_pixel_centers) {
  const float scale = (align_corners && output_size > 1)
                          ? static_cast<float>(input_size - 1) / static_cast<float>(output_size - 1)
                          : static_cast<float>(input_size) / static_cast<float>(output_size);
  const float offset = half_pixel_centers ? 0.5f : 0.0f;
  const float source = (static_cast<float>(value) + offset) * scale;
  const auto rounded = static_cast<int32_t>(align_corners ? std::round(source) : std::floor(source));
  int32_t nearest = rounded < input_size - 1 ? rounded : input_size - 1;
  if (half_pixel_centers && nearest < 0) nearest = 0;
  return nearest;
}

// T is the element type as copied (FLOAT32 as int32, as TFLM does).
template <typename T>
struct ResizeNearestNeighborLoops {
  ResizeShape g;

  template <class IO, class Memory>
  void eval(const IO& io, Memory& mem) const {
    const auto& input = io.input(0);
    const auto& output = io.output(0);
    int64_t out = 0;
    for (int32_t b = 0; b < g.batches; ++b) {
      for (int32_t y = 0; y < g.output_height; ++y) {
        const int32_t in_y = nearest_neighbor(y, g.input_height, g.output_height, g.align_corners, g.half_pixel_centers);
        for (int32_t x = 0; x < g.output_width; ++x) {
          const int32_t in_x =
              nearest_neighbor(x, g.input_width, g.output_width, g.align_corners, g.half_pixel_centers);
          mem.template copy<T>(output, out, input, g.input_offset(b, in_y, in_x, 0), g.depth);
          out += g.depth;
        }
      }
    }
  }

  template <class F>
  void each_field(F&& f) const {
    f(g);
  }
};

}  // namespace dmo

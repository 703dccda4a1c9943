// RESIZE_BILINEAR's loop nests, as TFLite's reference_ops::ResizeBilinear
// (float) and ResizeBilinearInteger (int8) walk them: the output in order
// (batch, y, x, channel), each element stored right after its four input
// neighbours (rows y0/y1, columns x0/x1 of the same batch and channel) are
// loaded.
//  - float: source coordinates in float ((v + 0.5) * scale - 0.5 with
//    half_pixel_centers), weights 1 - frac and frac, the four products
//    summed in TFLite's order;
//  - int8: the same in 10-bit fixed point (scale rounded to 1/1024), the
//    sum of the four 20-bit products rounded half away from zero.
// Freestanding: the host kernels and generated code run these nests.
#pragma once

#include <cmath>
#include <cstdint>

#include "dmo/ops/eval/resize_shape.h"

namespace dmo {

// ComputeInterpolationValues: the source coordinate of output `value`, its
// lower and upper neighbours, and the upper one's weight.
struct FloatResizeSource {
  int32_t lower = 0, upper = 0;
  float weight = 0.0f;

  FloatResizeSource(int32_t value, float scale, bool half_pixel_centers, int32_t input_size) {
    const auto v = static_cast<float>(value);
    const float scaled = half_pixel_centers ? (v + 0.5f) * scale - 0.5f : v * scale;
    const auto floor = static_cast<int32_t>(std::floor(scaled));
    const auto ceil = static_cast<int32_t>(std::ceil(scaled));
    lower = floor > 0 ? floor : 0;
    upper = ceil < input_size - 1 ? ceil : input_size - 1;
    weight = scaled - static_cast<float>(lower);
  }
};

// ComputeInterpolationValuesInteger: the same with scales and the weight in 1/1024.
struct IntegerResizeSource {
  int32_t lower = 0, upper = 0;
  int64_t weight = 0;

  IntegerResizeSource(int32_t value, int32_t scale_10, bool half_pixel_centers, int32_t input_size) {
    const int32_t scaled = half_pixel_centers ? value * scale_10 + scale_10 / 2 - (1 << 9) : value * scale_10;
    const int32_t floor = scaled / (1 << 10);
    const int32_t ceil = (scaled + (1 << 10) - 1) / (1 << 10);
    lower = floor > 0 ? floor : 0;
    upper = ceil < input_size - 1 ? ceil : input_size - 1;
    weight = scaled - (1 << 10) * lower;
  }
};

// The walk both nests share: per output element, its four neighbours
// loaded, then blend(top left, bottom left, top right, bottom right, row
// weight, column weight) stored; Source(v, scale, half_pixel_centers,
// size) gives a coordinate's neighbours and weight.
template <typename T, class Source, class IO, class Memory, class Scale, class Blend>
void resize_bilinear_walk(const ResizeShape& g, const IO& io, Memory& mem, Scale height_scale, Scale width_scale,
                          const Blend& blend) {
  const auto& input = io.input(0);
  const auto& output = io.output(0);
  for (int64_t b = 0; b < g.batches; ++b) {
    for (int32_t y = 0; y < g.output_height; ++y) {
      const Source sy(y, height_scale, g.half_pixel_centers, g.input_height);
      for (int32_t x = 0; x < g.output_width; ++x) {
        const Source sx(x, width_scale, g.half_pixel_centers, g.input_width);
        for (int64_t c = 0; c < g.depth; ++c) {
          const T top_left = mem.template load<T>(input, g.input_offset(b, sy.lower, sx.lower, c));
          const T bottom_left = mem.template load<T>(input, g.input_offset(b, sy.upper, sx.lower, c));
          const T top_right = mem.template load<T>(input, g.input_offset(b, sy.lower, sx.upper, c));
          const T bottom_right = mem.template load<T>(input, g.input_offset(b, sy.upper, sx.upper, c));
          mem.template store<T>(output, g.output_offset(b, y, x, c),
                                blend(top_left, bottom_left, top_right, bottom_right, sy.weight, sx.weight));
        }
      }
    }
  }
}

struct ResizeBilinearFloatLoops {
  ResizeShape g;

  template <class IO, class Memory>
  void eval(const IO& io, Memory& mem) const {
    const int32_t in_h = g.input_height, in_w = g.input_width, out_h = g.output_height, out_w = g.output_width;
    float height_scale = static_cast<float>(in_h) / static_cast<float>(out_h);
    float width_scale = static_cast<float>(in_w) / static_cast<float>(out_w);
    if (g.align_corners && out_h > 1) height_scale = static_cast<float>(in_h - 1) / static_cast<float>(out_h - 1);
    if (g.align_corners && out_w > 1) width_scale = static_cast<float>(in_w - 1) / static_cast<float>(out_w - 1);
    resize_bilinear_walk<float, FloatResizeSource>(
        g, io, mem, height_scale, width_scale,
        [](float top_left, float bottom_left, float top_right, float bottom_right, float dy, float dx) {
          // TFLite's expression, term by term (rounding offset 0 for float).
          return top_left * (1 - dy) * (1 - dx) + bottom_left * dy * (1 - dx) + top_right * (1 - dy) * dx +
                 bottom_right * dy * dx + 0.0f;
        });
  }

  template <class F>
  void each_field(F&& f) const {
    f(g);
  }
};

struct ResizeBilinearInt8Loops {
  ResizeShape g;

  template <class IO, class Memory>
  void eval(const IO& io, Memory& mem) const {
    const int32_t in_h = g.input_height, in_w = g.input_width, out_h = g.output_height, out_w = g.output_width;
    int32_t height_scale_10 = ((1 << 10) * in_h + out_h / 2) / out_h;
    int32_t width_scale_10 = ((1 << 10) * in_w + out_w / 2) / out_w;
    if (g.align_corners && out_h > 1) height_scale_10 = ((1 << 10) * (in_h - 1) + (out_h - 1) / 2) / (out_h - 1);
    if (g.align_corners && out_w > 1) width_scale_10 = ((1 << 10) * (in_w - 1) + (out_w - 1) / 2) / (out_w - 1);
    resize_bilinear_walk<int8_t, IntegerResizeSource>(
        g, io, mem, height_scale_10, width_scale_10,
        [](int64_t top_left, int64_t bottom_left, int64_t top_right, int64_t bottom_right, int64_t dy, int64_t dx) {
          const int64_t sum = top_left * ((1 << 10) - dy) * ((1 << 10) - dx) + bottom_left * dy * ((1 << 10) - dx) +
                              top_right * ((1 << 10) - dy) * dx + bottom_right * dy * dx;
          const int64_t round = sum > 0 ? (1 << 19) : -(1 << 19);
          return static_cast<int8_t>((sum + round) / (1 << 20));
        });
  }

  template <class F>
  void each_field(F&& f) const {
    f(g);
  }
};

}  // namespace dmo

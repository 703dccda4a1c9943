// RESIZE_BILINEAR, mirroring TFLM's resize_bilinear.cc (Prepare, Eval):
// FLOAT32 runs reference_ops::ResizeBilinear, INT8 runs
// reference_ops::ResizeBilinearInteger (TFLM has no other type).
// Both walk the output in order (batch, y, x, channel): each output element
// is stored right after its four input neighbours (rows y0/y1, columns
// x0/x1 of the same batch and channel) are loaded. When upsampling, the
// neighbours of output row y lie at input rows near y * in / out, so the
// reads run ahead of the writes in bytes and the output may overlap the
// input's start (the algorithmic O_s says by how much).
//  - float: source coordinates in float ((v + 0.5) * scale - 0.5 with
//    half_pixel_centers), weights 1 - frac and frac, the four products
//    summed in TFLite's order.
//  - int8: the same in 10-bit fixed point (scale rounded to 1/1024), the
//    sum of the four 20-bit products rounded half away from zero.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <variant>

#include "../elementwise.h"
#include "resize_geometry.h"
#include "dmo/ops/kernels.h"

namespace dmo {
namespace {

// ComputeInterpolationValues: the source coordinate of output `value` and
// its lower and upper neighbours.
struct FloatSource {
  float scaled = 0.0f;
  int32_t lower = 0, upper = 0;
};

FloatSource float_source(int32_t value, float scale, bool half_pixel_centers, int32_t input_size) {
  FloatSource s;
  const auto v = static_cast<float>(value);
  s.scaled = half_pixel_centers ? (v + 0.5f) * scale - 0.5f : v * scale;
  s.lower = std::max(static_cast<int32_t>(std::floor(s.scaled)), int32_t{0});
  s.upper = std::min(static_cast<int32_t>(std::ceil(s.scaled)), input_size - 1);
  return s;
}

// ComputeInterpolationValuesInteger: the same with scales in 1/1024.
struct IntegerSource {
  int32_t scaled = 0, lower = 0, upper = 0;
};

IntegerSource integer_source(int32_t value, int32_t scale_10, bool half_pixel_centers, int32_t input_size) {
  IntegerSource s;
  s.scaled = half_pixel_centers ? value * scale_10 + scale_10 / 2 - (1 << 9) : value * scale_10;
  s.lower = std::max(s.scaled / (1 << 10), int32_t{0});
  s.upper = std::min((s.scaled + (1 << 10) - 1) / (1 << 10), input_size - 1);
  return s;
}

struct ResizeBilinearFloatKernel {
  ResizeGeometry g;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const TensorRef& input = io.input(0);
    const TensorRef& output = io.output(0);
    const auto in_h = static_cast<int32_t>(g.input_height), in_w = static_cast<int32_t>(g.input_width);
    const auto out_h = static_cast<int32_t>(g.output_height), out_w = static_cast<int32_t>(g.output_width);
    float height_scale = static_cast<float>(in_h) / static_cast<float>(out_h);
    float width_scale = static_cast<float>(in_w) / static_cast<float>(out_w);
    if (g.align_corners && out_h > 1) height_scale = static_cast<float>(in_h - 1) / static_cast<float>(out_h - 1);
    if (g.align_corners && out_w > 1) width_scale = static_cast<float>(in_w - 1) / static_cast<float>(out_w - 1);
    for (int64_t b = 0; b < g.batches; ++b) {
      for (int32_t y = 0; y < out_h; ++y) {
        const FloatSource sy = float_source(y, height_scale, g.half_pixel_centers, in_h);
        const float dy = sy.scaled - static_cast<float>(sy.lower);
        for (int32_t x = 0; x < out_w; ++x) {
          const FloatSource sx = float_source(x, width_scale, g.half_pixel_centers, in_w);
          const float dx = sx.scaled - static_cast<float>(sx.lower);
          for (int64_t c = 0; c < g.depth; ++c) {
            const float top_left = mem.template load<float>(input, g.input_offset(b, sy.lower, sx.lower, c));
            const float bottom_left = mem.template load<float>(input, g.input_offset(b, sy.upper, sx.lower, c));
            const float top_right = mem.template load<float>(input, g.input_offset(b, sy.lower, sx.upper, c));
            const float bottom_right = mem.template load<float>(input, g.input_offset(b, sy.upper, sx.upper, c));
            // TFLite's expression, term by term (rounding offset 0 for float).
            const float value = top_left * (1 - dy) * (1 - dx) + bottom_left * dy * (1 - dx) +
                                top_right * (1 - dy) * dx + bottom_right * dy * dx + 0.0f;
            mem.template store<float>(output, g.output_offset(b, y, x, c), value);
          }
        }
      }
    }
  }
};

struct ResizeBilinearInt8Kernel {
  ResizeGeometry g;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const TensorRef& input = io.input(0);
    const TensorRef& output = io.output(0);
    const auto in_h = static_cast<int32_t>(g.input_height), in_w = static_cast<int32_t>(g.input_width);
    const auto out_h = static_cast<int32_t>(g.output_height), out_w = static_cast<int32_t>(g.output_width);
    int32_t height_scale_10 = ((1 << 10) * in_h + out_h / 2) / out_h;
    int32_t width_scale_10 = ((1 << 10) * in_w + out_w / 2) / out_w;
    if (g.align_corners && out_h > 1) height_scale_10 = ((1 << 10) * (in_h - 1) + (out_h - 1) / 2) / (out_h - 1);
    if (g.align_corners && out_w > 1) width_scale_10 = ((1 << 10) * (in_w - 1) + (out_w - 1) / 2) / (out_w - 1);
    for (int64_t b = 0; b < g.batches; ++b) {
      for (int32_t y = 0; y < out_h; ++y) {
        const IntegerSource sy = integer_source(y, height_scale_10, g.half_pixel_centers, in_h);
        const int64_t dy = sy.scaled - (1 << 10) * sy.lower;  // weight of the upper row, in 1/1024
        for (int32_t x = 0; x < out_w; ++x) {
          const IntegerSource sx = integer_source(x, width_scale_10, g.half_pixel_centers, in_w);
          const int64_t dx = sx.scaled - (1 << 10) * sx.lower;
          for (int64_t c = 0; c < g.depth; ++c) {
            const int64_t top_left = mem.template load<int8_t>(input, g.input_offset(b, sy.lower, sx.lower, c));
            const int64_t bottom_left = mem.template load<int8_t>(input, g.input_offset(b, sy.upper, sx.lower, c));
            const int64_t top_right = mem.template load<int8_t>(input, g.input_offset(b, sy.lower, sx.upper, c));
            const int64_t bottom_right = mem.template load<int8_t>(input, g.input_offset(b, sy.upper, sx.upper, c));
            const int64_t sum = top_left * ((1 << 10) - dy) * ((1 << 10) - dx) + bottom_left * dy * ((1 << 10) - dx) +
                                top_right * ((1 << 10) - dy) * dx + bottom_right * dy * dx;
            const int64_t round = sum > 0 ? (1 << 19) : -(1 << 19);
            mem.template store<int8_t>(output, g.output_offset(b, y, x, c), static_cast<int8_t>((sum + round) / (1 << 20)));
          }
        }
      }
    }
  }
};

}  // namespace

PreparedKernel prepare_resize_bilinear(const OpContext& ctx) {
  const auto* params = std::get_if<ResizeBilinearParams>(&ctx.op->params);
  const ResizeBilinearParams p = params ? *params : ResizeBilinearParams{};
  const ResizeGeometry g = resize_geometry(ctx, p.align_corners, p.half_pixel_centers);
  switch (ctx.input(0).type()) {
    case DataType::kFloat32: return PreparedKernel::of(ResizeBilinearFloatKernel{g});
    case DataType::kInt8: return PreparedKernel::of(ResizeBilinearInt8Kernel{g});
    default: fail_unsupported_type(ctx, "input", ctx.input(0).type(), "FLOAT32, INT8");
  }
}

}  // namespace dmo

// RESIZE_NEAREST_NEIGHBOR, mirroring TFLM's resize_nearest_neighbor.cc
// (ResizeNearestNeighborPrepare, ResizeNearestNeighborEval) and
// reference_ops::ResizeNearestNeighbor: for each output pixel in order
// (batch, y, x) one memcpy of `depth` elements from the nearest input pixel
// (GetNearestNeighbor per coordinate). TFLM copies FLOAT32 as int32, INT8
// and INT16 as themselves; UINT8 (which TFLite defines and TFLM lacks) is
// the same byte copy. A memcpy's order is unspecified, so each pixel's copy
// may not partly overlap its source. The pixels are copied in ascending
// order, so the output may overlap the input's start as far as every
// pixel's copy still lands wholly below the pixel it copies, and no earlier
// copy lands on a pixel read later (the address-only policy folds each copy
// as all its stores before its loads, ops/memory_policy.h).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <variant>

#include "../elementwise.h"
#include "../resize_bilinear/resize_geometry.h"
#include "dmo/ops/kernels.h"

namespace dmo {
namespace {

// GetNearestNeighbor: the input coordinate output coordinate `value` copies.
int32_t nearest_neighbor(int32_t value, int32_t input_size, int32_t output_size, bool align_corners,
                         bool half_pixel_centers) {
  const float scale = (align_corners && output_size > 1)
                          ? static_cast<float>(input_size - 1) / static_cast<float>(output_size - 1)
                          : static_cast<float>(input_size) / static_cast<float>(output_size);
  const float offset = half_pixel_centers ? 0.5f : 0.0f;
  const float source = (static_cast<float>(value) + offset) * scale;
  int32_t nearest = std::min(align_corners ? static_cast<int32_t>(std::round(source))
                                           : static_cast<int32_t>(std::floor(source)),
                             input_size - 1);
  if (half_pixel_centers) nearest = std::max(int32_t{0}, nearest);
  return nearest;
}

template <typename T>
struct ResizeNearestNeighborKernel {
  ResizeGeometry g;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const TensorRef& input = io.input(0);
    const TensorRef& output = io.output(0);
    const auto in_h = static_cast<int32_t>(g.input_height), in_w = static_cast<int32_t>(g.input_width);
    const auto out_h = static_cast<int32_t>(g.output_height), out_w = static_cast<int32_t>(g.output_width);
    int64_t out = 0;
    for (int64_t b = 0; b < g.batches; ++b) {
      for (int32_t y = 0; y < out_h; ++y) {
        const int32_t in_y = nearest_neighbor(y, in_h, out_h, g.align_corners, g.half_pixel_centers);
        for (int32_t x = 0; x < out_w; ++x) {
          const int32_t in_x = nearest_neighbor(x, in_w, out_w, g.align_corners, g.half_pixel_centers);
          mem.template copy<T>(output, out, input, g.input_offset(b, in_y, in_x, 0), g.depth);
          out += g.depth;
        }
      }
    }
  }
};

}  // namespace

PreparedKernel prepare_resize_nearest_neighbor(const OpContext& ctx) {
  const auto* params = std::get_if<ResizeNearestNeighborParams>(&ctx.op->params);
  const ResizeNearestNeighborParams p = params ? *params : ResizeNearestNeighborParams{};
  const ResizeGeometry g = resize_geometry(ctx, p.align_corners, p.half_pixel_centers);
  switch (ctx.input(0).type()) {
    case DataType::kFloat32: return PreparedKernel::of(ResizeNearestNeighborKernel<int32_t>{g});
    case DataType::kInt8: return PreparedKernel::of(ResizeNearestNeighborKernel<int8_t>{g});
    case DataType::kUInt8: return PreparedKernel::of(ResizeNearestNeighborKernel<uint8_t>{g});
    case DataType::kInt16: return PreparedKernel::of(ResizeNearestNeighborKernel<int16_t>{g});
    default: fail_unsupported_type(ctx, "input", ctx.input(0).type(), "FLOAT32, INT8, UINT8, INT16");
  }
}

}  // namespace dmo

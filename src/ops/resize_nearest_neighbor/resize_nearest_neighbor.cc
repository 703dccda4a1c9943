// RESIZE_NEAREST_NEIGHBOR, mirroring TFLM's resize_nearest_neighbor.cc
// (ResizeNearestNeighborPrepare, ResizeNearestNeighborEval) and
// reference_ops::ResizeNearestNeighbor (the nest is
// ops/eval/resize_nearest_neighbor_loops.h): for each output pixel in order
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

#include <cstdint>
#include <variant>

#include "../elementwise.h"
#include "../instance_kernel.h"
#include "../resize_bilinear/resize_geometry.h"
#include "dmo/ops/eval/resize_nearest_neighbor_loops.h"
#include "dmo/ops/kernels.h"

namespace dmo {
PreparedKernel prepare_resize_nearest_neighbor(const OpContext& ctx) {
  const auto* params = std::get_if<ResizeNearestNeighborParams>(&ctx.op->params);
  const ResizeNearestNeighborParams p = params ? *params : ResizeNearestNeighborParams{};
  const ResizeShape g = resize_geometry(ctx, p.align_corners, p.half_pixel_centers);
  auto kernel = [&]<typename T>() {
    const ResizeNearestNeighborLoops<T> k{g};
    return instance_kernel(k, fmt::format("ResizeNearestNeighborLoops<{}>", device_type_name<T>()),
                           ctx.input(0).type());
  };
  switch (ctx.input(0).type()) {
    case DataType::kFloat32: return kernel.template operator()<int32_t>();
    case DataType::kInt8: return kernel.template operator()<int8_t>();
    case DataType::kUInt8: return kernel.template operator()<uint8_t>();
    case DataType::kInt16: return kernel.template operator()<int16_t>();
    default: fail_unsupported_type(ctx, "input", ctx.input(0).type(), "FLOAT32, INT8, UINT8, INT16");
  }
}

}  // namespace dmo

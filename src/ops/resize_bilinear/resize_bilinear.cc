// RESIZE_BILINEAR, mirroring TFLM's resize_bilinear.cc (Prepare, Eval):
// FLOAT32 runs reference_ops::ResizeBilinear, INT8 runs
// reference_ops::ResizeBilinearInteger (TFLM has no other type).
// Both walk the output in order (batch, y, x, channel): each output element
// is stored right after its four input neighbours (rows y0/y1, columns
// x0/x1 of the same batch and channel) are loaded. When upsampling, the
// neighbours of output row y lie at input rows near y * in / out, so the
// reads run ahead of the writes in bytes and the output may overlap the
// input's start (the algorithmic O_s says by how much).
// The nests and their arithmetic are ops/eval/resize_bilinear_loops.h.
#include <fmt/format.h>

#include <variant>

#include "../elementwise.h"
#include "../instance_kernel.h"
#include "resize_geometry.h"
#include "dmo/ops/eval/resize_bilinear_loops.h"
#include "dmo/ops/kernels.h"

namespace dmo {
PreparedKernel prepare_resize_bilinear(const OpContext& ctx) {
  const auto* params = std::get_if<ResizeBilinearParams>(&ctx.op->params);
  const ResizeBilinearParams p = params ? *params : ResizeBilinearParams{};
  const ResizeShape g = resize_geometry(ctx, p.align_corners, p.half_pixel_centers);
  switch (ctx.input(0).type()) {
    case DataType::kFloat32:
      return instance_kernel(ResizeBilinearFloatLoops{g}, "ResizeBilinearFloatLoops", DataType::kFloat32);
    case DataType::kInt8: return instance_kernel(ResizeBilinearInt8Loops{g}, "ResizeBilinearInt8Loops", DataType::kInt8);
    default: fail_unsupported_type(ctx, "input", ctx.input(0).type(), "FLOAT32, INT8");
  }
}

}  // namespace dmo

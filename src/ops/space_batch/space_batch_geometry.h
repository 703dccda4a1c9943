// What SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND share: 3-D (N, H, C) or 4-D
// (N, H, W, C) tensors, seen as 4-D with W = 1 for 3-D ones as TFLM's
// reference kernels extend them, and the constant block shape and
// paddings/crops ([spatial axes] and [spatial axes, 2], INT32) read and
// checked in prepare.
#pragma once

#include <fmt/format.h>

#include <array>
#include <vector>

#include "../constant_operand.h"
#include "dmo/ops/op_context.h"

namespace dmo {

// N, H, W, C of a 3-D or 4-D tensor (W = 1 for 3-D).
inline std::array<int64_t, 4> nhwc_of(const TensorRef& t) {
  if (t.rank() == 4) return {t.dim(0), t.dim(1), t.dim(2), t.dim(3)};
  return {t.dim(0), t.dim(1), 1, t.dim(2)};
}

struct SpaceBatchBlocks {
  std::vector<int64_t> block;  // per spatial axis
  std::vector<int64_t> edges;  // per spatial axis: before, after
};

// Checks the ranks and reads input 1 (block shape) and input 2 (`edges`:
// "paddings" or "crops").
inline SpaceBatchBlocks space_batch_blocks(const OpContext& ctx, const char* edges) {
  const TensorRef& input = ctx.input(0);
  const TensorRef& output = ctx.output(0);
  ctx.require(input.rank() >= 3 && input.rank() <= 4 && output.rank() == input.rank(),
              fmt::format("input and output are {}-D and {}-D; supported: both 3-D or both 4-D", input.rank(),
                          output.rank()));
  const size_t spatial = input.rank() - 2;
  SpaceBatchBlocks b;
  ctx.require(ctx.input(1).shape() == Shape{static_cast<int32_t>(spatial)},
              fmt::format("block_shape (input 1) has shape {}, expected {}", shape_to_string(ctx.input(1).shape()),
                          spatial));
  ctx.require(ctx.input(2).shape() == Shape{static_cast<int32_t>(spatial), 2},
              fmt::format("{} (input 2) has shape {}, expected {}x2", edges, shape_to_string(ctx.input(2).shape()),
                          spatial));
  b.block = constant_ints(ctx, 1, "block_shape", /*allow_int64=*/false);
  b.edges = constant_ints(ctx, 2, edges, /*allow_int64=*/false);
  for (size_t d = 0; d < spatial; ++d) {
    ctx.require(b.block[d] >= 1, fmt::format("block_shape {} of spatial axis {} is below 1", b.block[d], d));
    ctx.require(b.edges[2 * d] >= 0 && b.edges[2 * d + 1] >= 0,
                fmt::format("{} of spatial axis {} are negative", edges, d));
  }
  return b;
}

}  // namespace dmo

// BATCH_TO_SPACE_ND, mirroring TFLM's batch_to_space_nd kernel
// (BatchToSpaceNDPrepare, BatchToSpaceNDEval) and
// reference_ops::BatchToSpaceND: the INPUT is walked in order, batch by
// batch, row by row, pixel by pixel; a pixel that lands inside the cropped
// output is moved there with one memcpy of the channels, here a block copy
// (ops/block_copy.h): an output over the input may overlap it only as far
// as every pixel's copy lands wholly below its source and no earlier copy
// lands on a pixel read later.
// TFLM runs FLOAT32 and INT8; 3-D inputs are N, H, C. dmo needs the block
// shape and crops constant and the output's shape to be theirs.
#include <fmt/format.h>

#include "../element_width.h"
#include "../elementwise.h"
#include "../supported_types.h"
#include "dmo/ops/kernels.h"
#include "space_batch_geometry.h"

namespace dmo {

namespace {

struct BatchToSpaceKernel {
  std::array<int64_t, 4> in{}, out{};  // N, H, W, C
  int64_t block_h = 1, block_w = 1;
  int64_t crop_top = 0, crop_left = 0;
  ElementWidth width = ElementWidth::k1;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const TensorRef& input = io.input(0);
    const TensorRef& output = io.output(0);
    const int64_t depth = in[3];
    with_element_width(width, [&]<typename U>() {
      for (int64_t b = 0; b < in[0]; ++b) {
        const int64_t out_b = b % out[0];
        const int64_t spatial = b / out[0];
        for (int64_t h = 0; h < in[1]; ++h) {
          const int64_t out_h = h * block_h + spatial / block_w - crop_top;
          if (out_h < 0 || out_h >= out[1]) continue;
          for (int64_t w = 0; w < in[2]; ++w) {
            const int64_t out_w = w * block_w + spatial % block_w - crop_left;
            if (out_w < 0 || out_w >= out[2]) continue;
            mem.template copy<U>(output, ((out_b * out[1] + out_h) * out[2] + out_w) * depth, input,
                                 ((b * in[1] + h) * in[2] + w) * depth, depth);
          }
        }
      }
    });
  }
};

}  // namespace

PreparedKernel prepare_batch_to_space_nd(const OpContext& ctx) {
  require_operand_counts(ctx, 3, 1);
  const TensorRef& input = ctx.input(0);
  const TensorRef& output = ctx.output(0);
  require_type_among(ctx, "input", input.type(), {DataType::kFloat32, DataType::kInt8});
  require_output_type_matches_input(ctx);
  const SpaceBatchBlocks blocks = space_batch_blocks(ctx, "crops");
  // Output: the batch divided by every block, each spatial axis times its
  // block less its crops.
  Shape expected = input.shape();
  int64_t blocks_total = 1;
  for (size_t d = 0; d < blocks.block.size(); ++d) {
    const int64_t grown = input.dim(d + 1) * blocks.block[d] - blocks.edges[2 * d] - blocks.edges[2 * d + 1];
    ctx.require(grown >= 0, fmt::format("crops of spatial axis {} exceed its {} elements", d,
                                        input.dim(d + 1) * blocks.block[d]));
    expected[d + 1] = static_cast<int32_t>(grown);
    blocks_total *= blocks.block[d];
  }
  ctx.require(input.dim(0) % blocks_total == 0,
              fmt::format("input batch {} is not a multiple of the {} blocks", input.dim(0), blocks_total));
  expected[0] = static_cast<int32_t>(input.dim(0) / blocks_total);
  ctx.require(output.shape() == expected, fmt::format("output shape {} differs from the computed shape {}",
                                                      shape_to_string(output.shape()), shape_to_string(expected)));
  BatchToSpaceKernel k;
  k.in = nhwc_of(input);
  k.out = nhwc_of(output);
  k.block_h = blocks.block[0];
  k.crop_top = blocks.edges[0];
  if (input.rank() == 4) {
    k.block_w = blocks.block[1];
    k.crop_left = blocks.edges[2];
  }
  k.width = element_width(ctx, input.type());
  return PreparedKernel::of(std::move(k));
}

}  // namespace dmo

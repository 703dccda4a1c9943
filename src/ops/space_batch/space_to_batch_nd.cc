// SPACE_TO_BATCH_ND, mirroring TFLM's space_to_batch_nd kernel
// (SpaceToBatchNDPrepare, SpaceToBatchNDEval) and
// reference_ops::SpaceToBatchND: the output is walked in order, batch by
// batch, row by row, pixel by pixel; a pixel that falls in the padding is
// filled with memset (every byte the pad value), any other is copied from
// its input pixel with one memcpy of the channels, here a block copy
// (ops/block_copy.h): an output over the input may overlap it only as far
// as every pixel's copy lands wholly below its source and no earlier copy
// lands on a pixel read later.
// TFLM runs FLOAT32 (pad 0) and INT8 (pad the output zero point, which
// must equal the input's, as the scale must); 3-D inputs are N, H, C.
#include <fmt/format.h>

#include <cstring>

#include "../element_width.h"
#include "../elementwise.h"
#include "../supported_types.h"
#include "dmo/ops/kernels.h"
#include "space_batch_geometry.h"

namespace dmo {

namespace {

struct SpaceToBatchKernel {
  std::array<int64_t, 4> in{}, out{};  // N, H, W, C
  int64_t block_h = 1, block_w = 1;
  int64_t pad_top = 0, pad_left = 0;
  uint8_t pad_byte = 0;
  ElementWidth width = ElementWidth::k1;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const TensorRef& input = io.input(0);
    const TensorRef& output = io.output(0);
    const int64_t depth = in[3];
    with_element_width(width, [&]<typename U>() {
      U pad{};
      std::memset(&pad, pad_byte, sizeof(U));
      for (int64_t b = 0; b < out[0]; ++b) {
        const int64_t in_b = b % in[0];
        const int64_t shift_w = (b / in[0]) % block_w;
        const int64_t shift_h = (b / in[0]) / block_w;
        for (int64_t h = 0; h < out[1]; ++h) {
          const int64_t in_h = h * block_h + shift_h - pad_top;
          for (int64_t w = 0; w < out[2]; ++w) {
            const int64_t in_w = w * block_w + shift_w - pad_left;
            const int64_t at = ((b * out[1] + h) * out[2] + w) * depth;
            if (in_h < 0 || in_h >= in[1] || in_w < 0 || in_w >= in[2]) {
              for (int64_t c = 0; c < depth; ++c) mem.template store<U>(output, at + c, pad);
            } else {
              mem.template copy<U>(output, at, input, ((in_b * in[1] + in_h) * in[2] + in_w) * depth, depth);
            }
          }
        }
      }
    });
  }
};

}  // namespace

PreparedKernel prepare_space_to_batch_nd(const OpContext& ctx) {
  require_operand_counts(ctx, 3, 1);
  const TensorRef& input = ctx.input(0);
  const TensorRef& output = ctx.output(0);
  require_type_among(ctx, "input", input.type(), {DataType::kFloat32, DataType::kInt8});
  require_output_type_matches_input(ctx);
  const SpaceBatchBlocks blocks = space_batch_blocks(ctx, "paddings");
  SpaceToBatchKernel k;
  if (input.type() == DataType::kInt8) {
    const AffineQuantization in_q = affine_quantization(ctx, input, "input");
    const AffineQuantization out_q = affine_quantization(ctx, output, "output");
    ctx.require(in_q.scale == out_q.scale && in_q.zero_point == out_q.zero_point,
                fmt::format("input quantization (scale {}, zero point {}) differs from the output's ({}, {})",
                            in_q.scale, in_q.zero_point, out_q.scale, out_q.zero_point));
    k.pad_byte = static_cast<uint8_t>(out_q.zero_point);
  }
  // Output: batch times every block, each padded spatial axis divided by its block.
  Shape expected = input.shape();
  int64_t batch = input.dim(0);
  for (size_t d = 0; d < blocks.block.size(); ++d) {
    const int64_t padded = input.dim(d + 1) + blocks.edges[2 * d] + blocks.edges[2 * d + 1];
    ctx.require(padded % blocks.block[d] == 0,
                fmt::format("spatial axis {} padded to {} is not a multiple of its block {}", d, padded,
                            blocks.block[d]));
    expected[d + 1] = static_cast<int32_t>(padded / blocks.block[d]);
    batch *= blocks.block[d];
  }
  expected[0] = static_cast<int32_t>(batch);
  ctx.require(output.shape() == expected, fmt::format("output shape {} differs from the computed shape {}",
                                                      shape_to_string(output.shape()), shape_to_string(expected)));
  k.in = nhwc_of(input);
  k.out = nhwc_of(output);
  k.block_h = blocks.block[0];
  k.pad_top = blocks.edges[0];
  if (input.rank() == 4) {
    k.block_w = blocks.block[1];
    k.pad_left = blocks.edges[2];
  }
  k.width = element_width(ctx, input.type());
  return PreparedKernel::of(std::move(k));
}

}  // namespace dmo

#include "resize_geometry.h"

#include <fmt/format.h>

#include <vector>

#include "../constant_operand.h"
#include "../elementwise.h"

namespace dmo {

ResizeShape resize_geometry(const OpContext& ctx, bool align_corners, bool half_pixel_centers) {
  require_operand_counts(ctx, 2, 1);
  const TensorRef& input = ctx.input(0);
  const TensorRef& output = ctx.output(0);
  ctx.require(input.rank() == 4, fmt::format("input {} must have 4 dimensions", shape_to_string(input.shape())));
  ctx.require(ctx.input(1).rank() == 1, fmt::format("size {} must have 1 dimension",
                                                    shape_to_string(ctx.input(1).shape())));
  const std::vector<int64_t> size = constant_ints(ctx, 1, "size", /*allow_int64=*/false);
  ctx.require(size.size() == 2, fmt::format("size has {} values, expected 2 (height, width)", size.size()));
  ctx.require(size[0] > 0 && size[1] > 0, fmt::format("size {}x{} must be positive", size[0], size[1]));
  ctx.require(input.dim(1) > 0 && input.dim(2) > 0,
              fmt::format("input {} has no pixels to resize", shape_to_string(input.shape())));
  ctx.require(!(align_corners && half_pixel_centers), "align_corners and half_pixel_centers cannot both be set");
  const Shape expected = {input.dim(0), static_cast<int32_t>(size[0]), static_cast<int32_t>(size[1]), input.dim(3)};
  ctx.require(output.shape() == expected, fmt::format("output {} should be {} (input {}, size {}x{})",
                                                      shape_to_string(output.shape()), shape_to_string(expected),
                                                      shape_to_string(input.shape()), size[0], size[1]));
  require_output_type_matches_input(ctx);
  ResizeShape g;
  g.batches = input.dim(0);
  g.input_height = input.dim(1);
  g.input_width = input.dim(2);
  g.depth = input.dim(3);
  g.output_height = static_cast<int32_t>(size[0]);
  g.output_width = static_cast<int32_t>(size[1]);
  g.align_corners = align_corners;
  g.half_pixel_centers = half_pixel_centers;
  return g;
}

}  // namespace dmo

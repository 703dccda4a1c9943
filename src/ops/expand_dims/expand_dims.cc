// EXPAND_DIMS: the same elements under a shape with one more axis of size 1,
// mirroring TFLM's expand_dims kernel (ExpandDimsPrepare, ExpandDimsEval):
// prepare checks the constant axis (INT32, one value, negative counting
// from the end of the output) against the output's shape; eval copies
// element by element in flat order (its memCopyN loop, not memcpy), each
// load right before its store, so the output may lie over the input, wholly
// or in part. TFLM runs FLOAT32, INT16 and INT8.
#include <fmt/format.h>

#include "../constant_operand.h"
#include "../element_width.h"
#include "../elementwise.h"
#include "../instance_kernel.h"
#include "../supported_types.h"
#include "dmo/ops/kernels.h"

namespace dmo {

PreparedKernel prepare_expand_dims(const OpContext& ctx) {
  require_operand_counts(ctx, 2, 1);
  const TensorRef& input = ctx.input(0);
  const TensorRef& output = ctx.output(0);
  require_type_among(ctx, "input", input.type(), {DataType::kFloat32, DataType::kInt16, DataType::kInt8});
  require_output_type_matches_input(ctx);
  ctx.require(ctx.input(1).rank() <= 1, fmt::format("axis (input 1) must be a scalar or 1-D, got shape {}",
                                                    shape_to_string(ctx.input(1).shape())));
  const std::vector<int64_t> axis_values = constant_ints(ctx, 1, "axis", /*allow_int64=*/false);
  ctx.require(axis_values.size() == 1, fmt::format("axis holds {} values, expected 1", axis_values.size()));
  const int64_t rank = static_cast<int64_t>(input.rank());
  int64_t axis = axis_values[0];
  if (axis < 0) axis += rank + 1;
  ctx.require(axis >= 0 && axis <= rank,
              fmt::format("axis {} is outside {}..{} for a {}-D input", axis_values[0], -rank - 1, rank, rank));
  Shape expected = input.shape();
  expected.insert(expected.begin() + axis, 1);
  ctx.require(output.shape() == expected,
              fmt::format("output shape {} is not the input's {} with a 1 inserted at axis {}: {}",
                          shape_to_string(output.shape()), shape_to_string(input.shape()), axis,
                          shape_to_string(expected)));
  PreparedKernel prepared;
  with_element_width(element_width(ctx, input.type()), [&]<typename U>() {
    prepared = map_elements_instance<U, U>(SameValue<U>{}, fmt::format("SameValue<{}>", device_type_name<U>()),
                                           input.elements(), input.type());
  });
  return prepared;
}

}  // namespace dmo

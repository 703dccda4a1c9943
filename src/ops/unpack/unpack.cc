// UNPACK: an input split along one axis into `num` outputs without that
// axis, mirroring TFLM's unpack kernel (UnpackEval, UnpackImpl; TFLM has no
// prepare for it): output by output, for each outer index (the axes before
// `axis`), that output's next run is copied element by element from its
// slot of the input, each load right before its store.
// TFLM runs FLOAT32, INT32, INT16 and INT8; without a prepare it checks
// nothing, so dmo checks the count, the types and the shapes.
#include <fmt/format.h>

#include <variant>

#include "../element_width.h"
#include "../instance_kernel.h"
#include "../supported_types.h"
#include "dmo/ops/eval/pack_loops.h"
#include "dmo/ops/kernels.h"

namespace dmo {

PreparedKernel prepare_unpack(const OpContext& ctx) {
  const auto* params = std::get_if<UnpackParams>(&ctx.op->params);
  ctx.require(params != nullptr, "UnpackOptions are missing");
  ctx.require(ctx.inputs.size() == 1 && ctx.has_input(0), fmt::format("expected 1 input, got {}", ctx.inputs.size()));
  const TensorRef& input = ctx.input(0);
  require_type_among(ctx, "input", input.type(),
                     {DataType::kFloat32, DataType::kInt32, DataType::kInt16, DataType::kInt8});
  const int64_t rank = static_cast<int64_t>(input.rank());
  const int64_t axis = params->axis < 0 ? params->axis + rank : params->axis;
  ctx.require(axis >= 0 && axis < rank, fmt::format("axis {} is outside the {}-D input", params->axis, rank));
  const int64_t extent = input.dim(static_cast<size_t>(axis));
  ctx.require(params->num == extent && ctx.outputs.size() == static_cast<size_t>(extent),
              fmt::format("num is {} and the op has {} output(s), but axis {} of the input has {}", params->num,
                          ctx.outputs.size(), axis, extent));
  Shape expected = input.shape();
  expected.erase(expected.begin() + axis);
  for (size_t i = 0; i < ctx.outputs.size(); ++i) {
    const TensorRef& output = ctx.output(i);
    ctx.require(output.tensor != nullptr, fmt::format("output {} is missing", i));
    ctx.require(output.type() == input.type(), fmt::format("output {} is {} but the input is {}", i,
                                                           data_type_name(output.type()),
                                                           data_type_name(input.type())));
    ctx.require(output.shape() == expected,
                fmt::format("output {} has shape {}; the input without axis {} is {}", i,
                            shape_to_string(output.shape()), axis, shape_to_string(expected)));
  }
  int64_t outer = 1, run = 1;  // the elements before and after the axis
  for (int64_t d = 0; d < axis; ++d) outer *= input.dim(static_cast<size_t>(d));
  for (int64_t d = axis + 1; d < rank; ++d) run *= input.dim(static_cast<size_t>(d));
  PreparedKernel prepared;
  with_element_width(element_width(ctx, input.type()), [&]<typename U>() {
    const UnpackLoops<U> k{static_cast<int32_t>(ctx.outputs.size()), outer, run};
    prepared = instance_kernel(k, fmt::format("UnpackLoops<{}>", device_type_name<U>()), input.type());
  });
  return prepared;
}

}  // namespace dmo

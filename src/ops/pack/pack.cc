// PACK: values_count inputs of one shape stacked along a new output axis,
// mirroring TFLM's pack kernel (PackImpl; TFLM has no prepare for it): input
// by input, for each outer index (the axes before `axis`), the input's next
// run is copied element by element, each load right before its store, into
// that input's slot of the output. The output is not walked in order, and
// each input's safe overlap is what that order allows it.
// TFLM runs FLOAT32, INT8, INT16, INT32 and INT64 (it dispatches on the
// output's type); without a prepare it checks nothing, so dmo checks the
// count, the types and the shapes.
#include <fmt/format.h>

#include <variant>

#include "../element_width.h"
#include "../instance_kernel.h"
#include "../supported_types.h"
#include "dmo/ops/eval/pack_loops.h"
#include "dmo/ops/kernels.h"

namespace dmo {

PreparedKernel prepare_pack(const OpContext& ctx) {
  const auto* params = std::get_if<PackParams>(&ctx.op->params);
  ctx.require(params != nullptr, "PackOptions are missing");
  ctx.require(params->values_count >= 1,
              fmt::format("values_count is {}, must be at least 1", params->values_count));
  ctx.require(ctx.inputs.size() == static_cast<size_t>(params->values_count),
              fmt::format("values_count is {} but the op has {} input(s)", params->values_count, ctx.inputs.size()));
  ctx.require(ctx.outputs.size() == 1 && ctx.output(0).tensor != nullptr,
              fmt::format("expected 1 output, got {}", ctx.outputs.size()));
  const TensorRef& output = ctx.output(0);
  require_type_among(ctx, "output", output.type(),
                     {DataType::kFloat32, DataType::kInt8, DataType::kInt16, DataType::kInt32, DataType::kInt64});
  const int64_t rank = static_cast<int64_t>(output.rank());
  const int64_t axis = params->axis < 0 ? params->axis + rank : params->axis;
  ctx.require(axis >= 0 && axis < rank, fmt::format("axis {} is outside the {}-D output", params->axis, rank));
  const Shape& first = ctx.has_input(0) ? ctx.input(0).shape() : Shape{};
  for (size_t i = 0; i < ctx.inputs.size(); ++i) {
    ctx.require(ctx.has_input(i), fmt::format("input {} is missing", i));
    const TensorRef& input = ctx.input(i);
    ctx.require(input.type() == output.type(),
                fmt::format("input {} is {} but the output is {}", i, data_type_name(input.type()),
                            data_type_name(output.type())));
    ctx.require(input.shape() == first, fmt::format("input {} has shape {} but input 0 has {}", i,
                                                    shape_to_string(input.shape()), shape_to_string(first)));
  }
  Shape expected = first;
  expected.insert(expected.begin() + axis, params->values_count);
  ctx.require(output.shape() == expected,
              fmt::format("output shape {} is not {} inputs of shape {} stacked at axis {}: {}",
                          shape_to_string(output.shape()), params->values_count, shape_to_string(first), axis,
                          shape_to_string(expected)));
  int64_t outer = 1, run = 1;  // the elements before and after the axis
  for (int64_t d = 0; d < axis; ++d) outer *= output.dim(static_cast<size_t>(d));
  for (int64_t d = axis + 1; d < rank; ++d) run *= output.dim(static_cast<size_t>(d));
  PreparedKernel prepared;
  with_element_width(element_width(ctx, output.type()), [&]<typename U>() {
    const PackLoops<U> k{static_cast<int32_t>(ctx.inputs.size()), outer, run};
    prepared = instance_kernel(k, fmt::format("PackLoops<{}>", device_type_name<U>()), output.type());
  });
  return prepared;
}

}  // namespace dmo

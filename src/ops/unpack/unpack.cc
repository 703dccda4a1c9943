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
#include "../supported_types.h"
#include "dmo/ops/kernels.h"

namespace dmo {

namespace {

struct UnpackKernel {
  int64_t outer = 1;
  int64_t run = 1;  // the elements after the axis
  ElementWidth width = ElementWidth::k1;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const TensorRef& input = io.input(0);
    const auto count = static_cast<int64_t>(io.outputs.size());
    with_element_width(width, [&]<typename U>() {
      for (int64_t i = 0; i < count; ++i) {
        const TensorRef& output = io.output(static_cast<size_t>(i));
        for (int64_t k = 0; k < outer; ++k) {
          const int64_t from = (k * count + i) * run;
          for (int64_t j = 0; j < run; ++j) {
            mem.template store<U>(output, k * run + j, mem.template load<U>(input, from + j));
          }
        }
      }
    });
  }
};

}  // namespace

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
  UnpackKernel k;
  for (int64_t d = 0; d < axis; ++d) k.outer *= input.dim(static_cast<size_t>(d));
  for (int64_t d = axis + 1; d < rank; ++d) k.run *= input.dim(static_cast<size_t>(d));
  k.width = element_width(ctx, input.type());
  return PreparedKernel::of(std::move(k));
}

}  // namespace dmo

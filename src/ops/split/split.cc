// SPLIT into num_splits equal slices along a constant axis, mirroring TFLM's
// split kernel (SplitImpl): for each outer index (the dimensions before the axis),
// each output in turn takes the next contiguous block of the input.
// Inputs are (axis, input): the axis comes first. TFLM copies element by
// element (no memcpy), each load right before its store, inputs in order.
#include <fmt/format.h>

#include <variant>

#include "../constant_operand.h"
#include "../element_width.h"
#include "dmo/model/data_type.h"
#include "dmo/ops/kernels.h"

namespace dmo {

namespace {

bool split_supports(DataType type) {
  switch (type) {
    case DataType::kFloat32:
    case DataType::kInt8:
    case DataType::kUInt8:
    case DataType::kInt16:
    case DataType::kInt32:
      return true;
    default:
      return false;
  }
}

// The prepared split: per outer index, each output's block in turn.
struct SplitKernel {
  int64_t outer = 1;
  int64_t block = 0;  // the slice's axis extent times the inner size
  ElementWidth width = ElementWidth::k1;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    with_element_width(width, [&]<typename U>() {
      split_loops<U>(io, mem, outer, block, /*source=*/1, static_cast<int32_t>(io.outputs.size()));
    });
  }
};

}  // namespace

PreparedKernel prepare_split(const OpContext& ctx) {
  ctx.require(ctx.inputs.size() == 2, fmt::format("expected 2 inputs (axis, input), got {}", ctx.inputs.size()));
  const auto* params = std::get_if<SplitParams>(&ctx.op->params);
  ctx.require(params != nullptr, "SplitOptions are missing");
  ctx.require(params->num_splits >= 1, fmt::format("num_splits is {}, must be at least 1", params->num_splits));
  ctx.require(static_cast<int64_t>(ctx.outputs.size()) == params->num_splits,
              fmt::format("num_splits is {} but the op has {} outputs", params->num_splits, ctx.outputs.size()));
  ctx.require(ctx.has_input(1), "input 1 (the tensor to split) is missing");

  const TensorRef& input = ctx.input(1);
  const DataType type = input.type();
  ctx.require(split_supports(type), fmt::format("input type {} is not supported; supported: FLOAT32, INT8, UINT8, "
                                                "INT16, INT32",
                                                data_type_name(type)));
  std::vector<int64_t> axis_values = constant_ints(ctx, 0, "axis", /*allow_int64=*/false);
  ctx.require(axis_values.size() == 1, fmt::format("axis has {} values, expected 1", axis_values.size()));
  const int64_t rank = static_cast<int64_t>(input.rank());
  const int64_t axis = axis_values[0] < 0 ? axis_values[0] + rank : axis_values[0];
  ctx.require(axis >= 0 && axis < rank, fmt::format("axis {} is outside a {}-D input", axis_values[0], rank));

  const int64_t splits = params->num_splits;
  const int32_t axis_size = input.dim(static_cast<size_t>(axis));
  ctx.require(axis_size % splits == 0,
              fmt::format("axis {} of size {} does not split into {} equal parts", axis, axis_size, splits));
  Shape slice_shape = input.shape();
  slice_shape[static_cast<size_t>(axis)] = static_cast<int32_t>(axis_size / splits);
  for (size_t i = 0; i < ctx.outputs.size(); ++i) {
    const TensorRef& output = ctx.output(i);
    ctx.require(output.type() == type, fmt::format("output {} has type {}, the input {}", i,
                                                   data_type_name(output.type()), data_type_name(type)));
    ctx.require(output.shape() == slice_shape, fmt::format("output {} has shape {}, expected {}", i,
                                                           shape_to_string(output.shape()),
                                                           shape_to_string(slice_shape)));
  }

  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= input.dim(static_cast<size_t>(d));
  int64_t inner = 1;
  for (int64_t d = axis + 1; d < rank; ++d) inner *= input.dim(static_cast<size_t>(d));
  const int64_t block = slice_shape[static_cast<size_t>(axis)] * inner;

  SplitKernel k;
  k.width = element_width(ctx, type);
  k.outer = outer;
  k.block = block;
  auto device = std::make_shared<DeviceKernel>();
  device->loops = DeviceLoops::kSplit;
  device->type = type;
  device->copy_element_bytes = static_cast<int32_t>(k.width);
  device->copy_outer = k.outer;
  device->copy_blocks = {k.block};
  PreparedKernel p = PreparedKernel::of(std::move(k));
  p.device = std::move(device);
  return p;
}

}  // namespace dmo

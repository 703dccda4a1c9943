// CONCATENATION along one axis, mirroring TFLM's reference_ops::Concatenation
// (every type; TFLM's concatenation kernel, EvalUnquantized): for each
// outer index (the dimensions before the axis), each input in turn copies its
// contiguous block (its axis extent times the inner size) to the output
// with memcpy, here a block copy (ops/block_copy.h): a copy's order is
// unspecified, so an output over an input may overlap it only as far as
// every block's destination lies wholly below its source.
// TFLite Micro copies quantized inputs as they are, never requantizing, and
// accepts no fused activation; the TFLite int8 scheme requires inputs and
// output to share one scale and zero point, so dmo checks that instead of
// silently mixing scales.
#include <fmt/format.h>

#include <variant>
#include <vector>

#include "../element_width.h"
#include "dmo/model/data_type.h"
#include "dmo/ops/eval/block_copy_loops.h"
#include "dmo/ops/kernels.h"

namespace dmo {

namespace {

bool concatenation_supports(DataType type) {
  switch (type) {
    case DataType::kFloat32:
    case DataType::kInt8:
    case DataType::kUInt8:
    case DataType::kInt16:
    case DataType::kInt32:
    case DataType::kInt64:
      return true;
    default:
      return false;
  }
}

bool same_per_tensor_quantization(const Tensor& a, const Tensor& b) {
  const Quantization& qa = a.quantization;
  const Quantization& qb = b.quantization;
  if (qa.empty() && qb.empty()) return true;
  if (qa.scale.size() != 1 || qb.scale.size() != 1) return false;
  int64_t za = qa.zero_point.empty() ? 0 : qa.zero_point[0];
  int64_t zb = qb.zero_point.empty() ? 0 : qb.zero_point[0];
  return qa.scale[0] == qb.scale[0] && za == zb;
}

// The prepared copy: per outer index, each input's block in turn.
struct ConcatenationKernel {
  int64_t outer = 1;
  std::vector<int64_t> blocks;  // per input: its axis extent times the inner size
  ElementWidth width = ElementWidth::k1;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    with_element_width(width, [&]<typename U>() {
      concatenation_loops<U>(io, mem, outer, blocks.data(), static_cast<int32_t>(blocks.size()));
    });
  }
};

}  // namespace

PreparedKernel prepare_concatenation(const OpContext& ctx) {
  ctx.require(!ctx.inputs.empty(), "expected at least 1 input");
  ctx.require(ctx.outputs.size() == 1, fmt::format("expected 1 output, got {}", ctx.outputs.size()));
  const auto* params = std::get_if<ConcatenationParams>(&ctx.op->params);
  ctx.require(params != nullptr, "ConcatenationOptions are missing");
  ctx.require(params->activation == Activation::kNone,
              fmt::format("fused activation {} is not supported (TFLite Micro requires NONE)",
                          static_cast<int>(params->activation)));

  const TensorRef& output = ctx.output(0);
  const DataType type = output.type();
  ctx.require(concatenation_supports(type),
              fmt::format("type {} is not supported; supported: FLOAT32, INT8, UINT8, INT16, INT32, INT64",
                          data_type_name(type)));
  const int32_t rank = static_cast<int32_t>(output.rank());
  const int32_t axis = params->axis < 0 ? params->axis + rank : params->axis;
  ctx.require(axis >= 0 && axis < rank, fmt::format("axis {} is outside a {}-D output", params->axis, rank));

  int64_t axis_total = 0;
  for (size_t i = 0; i < ctx.inputs.size(); ++i) {
    ctx.require(ctx.has_input(i), fmt::format("input {} is missing", i));
    const TensorRef& input = ctx.input(i);
    ctx.require(input.type() == type, fmt::format("input {} has type {}, the output {}", i,
                                                  data_type_name(input.type()), data_type_name(type)));
    ctx.require(static_cast<int32_t>(input.rank()) == rank,
                fmt::format("input {} is {}-D, the output {}-D", i, input.rank(), rank));
    for (int32_t d = 0; d < rank; ++d) {
      if (d == axis) continue;
      ctx.require(input.dim(static_cast<size_t>(d)) == output.dim(static_cast<size_t>(d)),
                  fmt::format("input {} shape {} does not match output shape {} outside axis {}", i,
                              shape_to_string(input.shape()), shape_to_string(output.shape()), axis));
    }
    axis_total += input.dim(static_cast<size_t>(axis));
    if (type == DataType::kInt8 || type == DataType::kUInt8 || type == DataType::kInt16) {
      ctx.require(same_per_tensor_quantization(*input.tensor, *output.tensor),
                  fmt::format("input {} is quantized differently from the output; TFLite Micro concatenates "
                              "quantized tensors without requantizing, so they must share scale and zero point",
                              i));
    }
  }
  ctx.require(axis_total == output.dim(static_cast<size_t>(axis)),
              fmt::format("inputs add up to {} along axis {}, the output has {}", axis_total, axis,
                          output.dim(static_cast<size_t>(axis))));

  int64_t outer = 1;
  for (int32_t d = 0; d < axis; ++d) outer *= output.dim(static_cast<size_t>(d));
  int64_t inner = 1;
  for (int32_t d = axis + 1; d < rank; ++d) inner *= output.dim(static_cast<size_t>(d));

  ConcatenationKernel k;
  k.width = element_width(ctx, type);
  k.outer = outer;
  for (size_t i = 0; i < ctx.inputs.size(); ++i) {
    k.blocks.push_back(ctx.input(i).dim(static_cast<size_t>(axis)) * inner);
  }
  auto device = std::make_shared<DeviceKernel>();
  device->loops = DeviceLoops::kConcatenation;
  device->type = type;
  device->copy_element_bytes = static_cast<int32_t>(k.width);
  device->copy_outer = k.outer;
  device->copy_blocks = k.blocks;
  PreparedKernel p = PreparedKernel::of(std::move(k));
  p.device = std::move(device);
  return p;
}

}  // namespace dmo

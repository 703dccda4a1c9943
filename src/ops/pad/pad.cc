// PAD and PADV2 with constant paddings, mirroring TFLM's reference_ops::Pad
// (PadImpl, every type; TFLM's pad kernel also runs it for PADV2): the
// output is walked in row-major order, each element is either the pad value
// or the next input element. The pad value is PADV2's scalar input when
// given, otherwise 0, or the output zero point for INT8 and UINT8 (TFLite
// Micro pads INT16 with 0). The nest, as TFLM orders it, is
// ops/eval/pad_loops.h, up to five dimensions as TFLM's PadPrepare allows.
#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "../constant_operand.h"
#include "../element_width.h"
#include "../instance_kernel.h"
#include "dmo/model/data_type.h"
#include "dmo/ops/eval/pad_loops.h"
#include "dmo/ops/kernels.h"

namespace dmo {

namespace {

bool pad_supports(DataType type) {
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

int64_t zero_point_of(const Tensor& t) {
  return t.quantization.zero_point.empty() ? 0 : t.quantization.zero_point[0];
}

// The bits of the implicit pad value (PAD without a constant input).
uint64_t default_pad_bits(const OpContext& ctx, const Tensor& output) {
  if (output.type != DataType::kInt8 && output.type != DataType::kUInt8) return 0;  // 0 and 0.0f alike
  const int64_t zero_point = zero_point_of(output);
  const bool int8 = output.type == DataType::kInt8;
  const int64_t lo = int8 ? std::numeric_limits<int8_t>::min() : std::numeric_limits<uint8_t>::min();
  const int64_t hi = int8 ? std::numeric_limits<int8_t>::max() : std::numeric_limits<uint8_t>::max();
  ctx.require(zero_point >= lo && zero_point <= hi,
              fmt::format("output zero point {} is not representable in {}", zero_point,
                          data_type_name(output.type)));
  return static_cast<uint8_t>(zero_point);
}

}  // namespace

PreparedKernel prepare_pad(const OpContext& ctx) {
  ctx.require(ctx.inputs.size() == 2 || ctx.inputs.size() == 3,
              fmt::format("expected 2 or 3 inputs (input, paddings[, constant value]), got {}", ctx.inputs.size()));
  ctx.require(ctx.outputs.size() == 1, fmt::format("expected 1 output, got {}", ctx.outputs.size()));
  ctx.require(ctx.has_input(0), "input 0 is missing");
  const TensorRef& input = ctx.input(0);
  const TensorRef& output = ctx.output(0);
  const DataType type = input.type();
  ctx.require(pad_supports(type), fmt::format("input type {} is not supported; supported: FLOAT32, INT8, UINT8, "
                                              "INT16, INT32",
                                              data_type_name(type)));
  ctx.require(output.type() == type, fmt::format("output type {} differs from input type {}",
                                                 data_type_name(output.type()), data_type_name(type)));
  const size_t rank = input.rank();
  ctx.require(output.rank() == rank, fmt::format("input is {}-D but output is {}-D", rank, output.rank()));
  ctx.require(rank <= static_cast<size_t>(kMaxPadRank),
              fmt::format("input is {}-D; supported: up to {}-D", rank, kMaxPadRank));

  const std::vector<int64_t> paddings = constant_ints(ctx, 1, "paddings");
  ctx.require(paddings.size() == 2 * rank,
              fmt::format("paddings has {} values, expected 2 per dimension ({})", paddings.size(), 2 * rank));
  int64_t before[kMaxPadRank] = {}, in_dims[kMaxPadRank] = {}, out_dims[kMaxPadRank] = {};
  for (size_t d = 0; d < rank; ++d) {
    before[d] = paddings[2 * d];
    const int64_t after = paddings[2 * d + 1];
    ctx.require(before[d] >= 0 && after >= 0,
                fmt::format("negative padding ({}, {}) on dimension {}", before[d], after, d));
    in_dims[d] = input.dim(d);
    out_dims[d] = output.dim(d);
    ctx.require(in_dims[d] + before[d] + after == out_dims[d],
                fmt::format("output dimension {} is {}, but input {} padded by ({}, {}) gives {}", d, out_dims[d],
                            in_dims[d], before[d], after, in_dims[d] + before[d] + after));
  }

  const bool has_constant = ctx.inputs.size() == 3 && ctx.has_input(2);
  if (has_constant) {
    const Tensor& constant = *ctx.input(2).tensor;
    ctx.require(constant.type == type, fmt::format("constant value has type {}, the input {}",
                                                   data_type_name(constant.type), data_type_name(type)));
    ctx.require(constant.element_count == 1,
                fmt::format("constant value has {} elements, expected a scalar", constant.element_count));
    if (type == DataType::kInt8 || type == DataType::kUInt8) {
      // The pad value must mean the same real number in the output.
      const Quantization& qc = constant.quantization;
      const Quantization& qo = output.tensor->quantization;
      ctx.require(zero_point_of(constant) == zero_point_of(*output.tensor) && qc.scale == qo.scale,
                  "constant value must have the output's scale and zero point");
    }
  }
  const uint64_t implicit_pad = has_constant ? 0 : default_pad_bits(ctx, *output.tensor);

  PreparedKernel prepared;
  with_element_width(element_width(ctx, type), [&]<typename U>() {
    PadLoops<U> k;
    k.rank = static_cast<int32_t>(rank);
    std::copy(before, before + kMaxPadRank, k.before);
    std::copy(in_dims, in_dims + kMaxPadRank, k.in_dims);
    std::copy(out_dims, out_dims + kMaxPadRank, k.out_dims);
    k.output_elements = output.elements();
    k.has_constant = has_constant;
    k.implicit_pad = static_cast<U>(implicit_pad);
    prepared = instance_kernel(k, fmt::format("PadLoops<{}>", device_type_name<U>()), type);
  });
  return prepared;
}

}  // namespace dmo

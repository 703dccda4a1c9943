#include "conv_operand_types.h"

#include <fmt/format.h>

namespace dmo {

void require_conv_operand_counts(const OpContext& ctx, const char* weights) {
  ctx.require(ctx.inputs.size() == 2 || ctx.inputs.size() == 3,
              fmt::format("expected 2 or 3 inputs (input, {}, bias), got {}", weights, ctx.inputs.size()));
  ctx.require(ctx.outputs.size() == 1, fmt::format("expected 1 output, got {}", ctx.outputs.size()));
  ctx.require(ctx.has_input(0) && ctx.has_input(1), fmt::format("input and {} must be given", weights));
}

void require_conv_operand_types(const OpContext& ctx) {
  const DataType type = ctx.input(0).type();
  ctx.require(type == DataType::kFloat32 || type == DataType::kInt8 || type == DataType::kUInt8,
              fmt::format("input type {} is not supported; supported: FLOAT32, INT8, UINT8", data_type_name(type)));
  const DataType filter = ctx.input(1).type();
  ctx.require(filter == type, fmt::format("filter type {} with {} input is not supported; the filter must be {}",
                                          data_type_name(filter), data_type_name(type), data_type_name(type)));
  if (ctx.has_input(2)) {
    const DataType expected = type == DataType::kFloat32 ? DataType::kFloat32 : DataType::kInt32;
    const DataType bias = ctx.input(2).type();
    ctx.require(bias == expected, fmt::format("bias type {} with {} input is not supported; the bias must be {}",
                                              data_type_name(bias), data_type_name(type), data_type_name(expected)));
  }
  const DataType output = ctx.output(0).type();
  ctx.require(output == type, fmt::format("output type {} with {} input is not supported; the output must be {}",
                                          data_type_name(output), data_type_name(type), data_type_name(type)));
}

void require_conv2d_operand_types(const OpContext& ctx) {
  const DataType type = ctx.input(0).type();
  if (type != DataType::kInt16) {
    ctx.require(type == DataType::kFloat32 || type == DataType::kInt8 || type == DataType::kUInt8,
                fmt::format("input type {} is not supported; supported: FLOAT32, INT8, UINT8, INT16",
                            data_type_name(type)));
    require_conv_operand_types(ctx);
    return;
  }
  const DataType filter = ctx.input(1).type();
  ctx.require(filter == DataType::kInt8,
              fmt::format("filter type {} with INT16 input is not supported; the filter must be INT8",
                          data_type_name(filter)));
  if (ctx.has_input(2)) {
    const DataType bias = ctx.input(2).type();
    ctx.require(bias == DataType::kInt32 || bias == DataType::kInt64,
                fmt::format("bias type {} with INT16 input is not supported; the bias must be INT32 or INT64",
                            data_type_name(bias)));
  }
  const DataType output = ctx.output(0).type();
  ctx.require(output == DataType::kInt16,
              fmt::format("output type {} with INT16 input is not supported; the output must be INT16",
                          data_type_name(output)));
}

}  // namespace dmo

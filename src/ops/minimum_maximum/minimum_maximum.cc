// MAXIMUM and MINIMUM, mirroring TFLM's maximum_minimum.cc (Eval with
// MaximumOp / MinimumOp) and TFLite's
// reference_ops::MaximumMinimumBroadcastSlow: the flat loop when the two
// input shapes are equal, the broadcast loop otherwise, both visiting the
// output in row-major order with a then b loaded right before each store
// (ops/broadcast.h). The comparison is TFLM's (ops/eval/min_max_arithmetic.h).
// The values are
// compared as stored: quantized operands are assumed to share their
// quantization, as TFLM assumes. FLOAT32, INT8, INT16, INT32 and INT64.
#include <cstdint>
#include <string_view>

#include <fmt/format.h>

#include "../broadcast.h"
#include "../elementwise.h"
#include "dmo/ops/eval/min_max_arithmetic.h"
#include "dmo/ops/kernels.h"

namespace dmo {
namespace {

template <class Op>
PreparedKernel prepare_maximum_minimum(const OpContext& ctx, std::string_view name) {
  require_operand_counts(ctx, 2, 1);
  const DataType type = ctx.output(0).type();
  for (size_t i = 0; i < 2; ++i) {
    ctx.require(ctx.input(i).type() == type, fmt::format("input {} type {} differs from output type {}", i,
                                                         data_type_name(ctx.input(i).type()), data_type_name(type)));
  }
  switch (type) {
    case DataType::kFloat32: return broadcast_binary_instance<float>(ctx, Op{}, name);
    case DataType::kInt8: return broadcast_binary_instance<int8_t>(ctx, Op{}, name);
    case DataType::kInt16: return broadcast_binary_instance<int16_t>(ctx, Op{}, name);
    case DataType::kInt32: return broadcast_binary_instance<int32_t>(ctx, Op{}, name);
    case DataType::kInt64: return broadcast_binary_instance<int64_t>(ctx, Op{}, name);
    default: fail_unsupported_type(ctx, "output", type, "FLOAT32, INT8, INT16, INT32, INT64");
  }
}

}  // namespace

PreparedKernel prepare_maximum(const OpContext& ctx) { return prepare_maximum_minimum<Maximum>(ctx, "Maximum"); }

PreparedKernel prepare_minimum(const OpContext& ctx) { return prepare_maximum_minimum<Minimum>(ctx, "Minimum"); }

}  // namespace dmo

// ARG_MAX and ARG_MIN, mirroring TFLM's arg_min_max.cc (ArgMaxEval,
// ArgMinEval, ArgMinMaxHelper) and TFLite's reference_ops::ArgMinMax: for
// each outer and inner position, the first element along the axis is
// loaded, then the others in order, each replacing the best when strictly
// greater (ARG_MAX) or less (ARG_MIN); the index is stored once the axis is
// done. FLOAT32, INT8 and UINT8 inputs; INT32 or INT64 output; the axis a
// constant INT32 or INT64 scalar (negative counts from the end).
#include <cstdint>
#include <functional>

#include <fmt/format.h>

#include "../constant_operand.h"
#include "../elementwise.h"
#include "dmo/ops/kernels.h"

namespace dmo {
namespace {

template <typename T, typename Index, class Better>
struct ArgMinMaxKernel {
  int64_t outer = 1, axis_size = 1, inner = 1;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const TensorRef& in = io.input(0);
    const TensorRef& out = io.output(0);
    const Better better;
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        T best = mem.template load<T>(in, o * axis_size * inner + i);
        Index best_index = 0;
        for (int64_t a = 1; a < axis_size; ++a) {
          const T value = mem.template load<T>(in, (o * axis_size + a) * inner + i);
          if (better(value, best)) {
            best = value;
            best_index = static_cast<Index>(a);
          }
        }
        mem.template store<Index>(out, o * inner + i, best_index);
      }
    }
  }
};

template <typename T, class Better>
PreparedKernel arg_kernel(const OpContext& ctx, int64_t outer, int64_t axis_size, int64_t inner) {
  if (ctx.output(0).type() == DataType::kInt64) {
    return PreparedKernel::of(ArgMinMaxKernel<T, int64_t, Better>{outer, axis_size, inner});
  }
  return PreparedKernel::of(ArgMinMaxKernel<T, int32_t, Better>{outer, axis_size, inner});
}

template <template <typename> class Compare>
PreparedKernel prepare_arg_min_max(const OpContext& ctx) {
  require_operand_counts(ctx, 2, 1);
  const Shape& in = ctx.input(0).shape();
  const Shape& out = ctx.output(0).shape();
  const std::vector<int64_t> axis_values = constant_ints(ctx, 1, "axis");
  ctx.require(axis_values.size() == 1, fmt::format("axis must hold 1 value, got {}", axis_values.size()));
  ctx.require(!in.empty(), "input must have at least one dimension");
  const auto rank = static_cast<int64_t>(in.size());
  int64_t axis = axis_values[0];
  ctx.require(axis >= -rank && axis < rank, fmt::format("axis {} is outside input rank {}", axis, rank));
  if (axis < 0) axis += rank;
  Shape expected = in;
  expected.erase(expected.begin() + axis);
  ctx.require(out == expected, fmt::format("output shape {} is not the input shape {} without axis {}",
                                           shape_to_string(out), shape_to_string(in), axis));
  const int64_t axis_size = in[static_cast<size_t>(axis)];
  ctx.require(axis_size > 0 || ctx.output(0).elements() == 0, "the axis has no elements to choose from");
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= in[static_cast<size_t>(d)];
  for (int64_t d = axis + 1; d < rank; ++d) inner *= in[static_cast<size_t>(d)];
  const DataType out_type = ctx.output(0).type();
  if (out_type != DataType::kInt32 && out_type != DataType::kInt64) {
    fail_unsupported_type(ctx, "output", out_type, "INT32, INT64");
  }
  const DataType type = ctx.input(0).type();
  switch (type) {
    case DataType::kFloat32: return arg_kernel<float, Compare<float>>(ctx, outer, axis_size, inner);
    case DataType::kInt8: return arg_kernel<int8_t, Compare<int8_t>>(ctx, outer, axis_size, inner);
    case DataType::kUInt8: return arg_kernel<uint8_t, Compare<uint8_t>>(ctx, outer, axis_size, inner);
    default: fail_unsupported_type(ctx, "input", type, "FLOAT32, INT8, UINT8");
  }
}

}  // namespace

PreparedKernel prepare_arg_max(const OpContext& ctx) { return prepare_arg_min_max<std::greater>(ctx); }

PreparedKernel prepare_arg_min(const OpContext& ctx) { return prepare_arg_min_max<std::less>(ctx); }

}  // namespace dmo

// SELECT_V2, mirroring TFLM's select.cc (SelectPrepare, SelectEval) and
// TFLite's reference_ops::Select (equal shapes, or every operand a single
// element) and BroadcastSelect5DSlow: out = condition ? x : y, the
// condition, x and y broadcast to the output, visited in row-major order.
// FLOAT32, INT8 and INT16 values; the condition is BOOL.
// Order: TFLM loads the condition and then only the operand it picks; dmo
// loads both x and y (after the condition, before the store), so the safe
// overlap it finds holds whatever the condition.
#include <algorithm>
#include <cstdint>

#include <fmt/format.h>

#include "../broadcast.h"
#include "../elementwise.h"
#include "dmo/ops/kernels.h"

namespace dmo {
namespace {

constexpr size_t kMaxBroadcastRank = 5;  // TFLM's BroadcastSelect5DSlow

template <typename T>
struct SelectKernel {
  // The condition, x and y each broadcast to the output (paired with it):
  // their cursors walk the output in step.
  BroadcastShape condition, x, y;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const TensorRef& out = io.output(0);
    BroadcastCursor at_condition(condition), at_x(x), at_y(y);
    const int64_t n = out.elements();
    for (int64_t i = 0; i < n; ++i, at_condition.advance(), at_x.advance(), at_y.advance()) {
      const bool pick_x = mem.template load<uint8_t>(io.input(0), at_condition.first()) != 0;
      const T x_value = mem.template load<T>(io.input(1), at_x.first());
      const T y_value = mem.template load<T>(io.input(2), at_y.first());
      mem.template store<T>(out, i, pick_x ? x_value : y_value);
    }
  }
};

// Fails unless the three inputs broadcast to exactly the output's shape.
void require_broadcast(const OpContext& ctx) {
  const Shape& out = ctx.output(0).shape();
  size_t rank = out.size();
  for (size_t i = 0; i < 3; ++i) rank = std::max(rank, ctx.input(i).rank());
  ctx.require(rank <= kMaxBroadcastRank,
              fmt::format("broadcasting supports up to {} dimensions, got {}", kMaxBroadcastRank, rank));
  auto dim = [rank](const Shape& s, size_t d) { return d + s.size() < rank ? 1 : s[d + s.size() - rank]; };
  for (size_t d = 0; d < rank; ++d) {
    int32_t widest = 1;
    bool fits = true;
    for (size_t i = 0; i < 3; ++i) {
      const int32_t extent = dim(ctx.input(i).shape(), d);
      fits = fits && (extent == 1 || extent == dim(out, d));
      widest = std::max(widest, extent);
    }
    ctx.require(fits && (dim(out, d) == widest || dim(out, d) == 0),
                fmt::format("input shapes {}, {} and {} do not broadcast to output shape {}",
                            shape_to_string(ctx.input(0).shape()), shape_to_string(ctx.input(1).shape()),
                            shape_to_string(ctx.input(2).shape()), shape_to_string(out)));
  }
}

template <typename T>
PreparedKernel select_kernel(const OpContext& ctx) {
  const Shape& out = ctx.output(0).shape();
  auto to_output = [&](size_t i) { return BroadcastShape(ctx, ctx.input(i).shape(), out, out); };
  return PreparedKernel::of(SelectKernel<T>{to_output(0), to_output(1), to_output(2)});
}

}  // namespace

PreparedKernel prepare_select_v2(const OpContext& ctx) {
  require_operand_counts(ctx, 3, 1);
  const DataType condition = ctx.input(0).type();
  ctx.require(condition == DataType::kBool,
              fmt::format("condition (input 0) type {} is not supported; it must be BOOL", data_type_name(condition)));
  const DataType type = ctx.input(1).type();
  ctx.require(ctx.input(2).type() == type, fmt::format("input 2 type {} differs from input 1 type {}",
                                                       data_type_name(ctx.input(2).type()), data_type_name(type)));
  ctx.require(ctx.output(0).type() == type, fmt::format("output type {} differs from input 1 type {}",
                                                        data_type_name(ctx.output(0).type()), data_type_name(type)));
  require_broadcast(ctx);
  switch (type) {
    case DataType::kFloat32: return select_kernel<float>(ctx);
    case DataType::kInt8: return select_kernel<int8_t>(ctx);
    case DataType::kInt16: return select_kernel<int16_t>(ctx);
    default: fail_unsupported_type(ctx, "input 1", type, "FLOAT32, INT8, INT16");
  }
}

}  // namespace dmo

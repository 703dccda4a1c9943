// EQUAL, NOT_EQUAL, LESS, LESS_EQUAL, GREATER and GREATER_EQUAL, mirroring
// TFLM's comparisons.cc (EqualEval ... LessEqualEval, ComparisonsPrepare)
// over reference_ops::ComparisonImpl / ComparisonWithScaling (inputs of the
// same shape: one flat loop) and BroadcastComparison4DSlowImpl /
// BroadcastComparison4DSlowWithScaling (otherwise: the output in row-major
// order, each input following with stride 0 where it broadcasts, at most 4
// dimensions). Each output element is stored right after its two loads.
// The output is BOOL. Types as TFLM's: FLOAT32, INT32, INT64 and INT8 for
// all six, BOOL for (NOT_)EQUAL, INT16 for GREATER; UINT8 as TFLite's
// reference kernels. Quantized inputs are compared after ComparisonsPrepare's
// rescaling: (q - zero_point) << 8, times the input's scale as a multiplier
// below one (QuantizeMultiplierSmallerThanOneExp).
#include <cstdint>
#include <utility>

#include <fmt/format.h>

#include "../broadcast.h"
#include "../elementwise.h"
#include "dmo/ops/fixed_point.h"
#include "dmo/ops/kernels.h"

namespace dmo {
namespace {

// TFLM's Broadcast4DSlow comparisons extend every shape to 4 dimensions.
constexpr size_t kMaxBroadcastRank = 4;

enum class Relation { kEqual, kNotEqual, kLess, kLessEqual, kGreater, kGreaterEqual };

template <Relation R, typename T>
bool holds(T lhs, T rhs) {
  if constexpr (R == Relation::kEqual) return lhs == rhs;
  if constexpr (R == Relation::kNotEqual) return lhs != rhs;
  if constexpr (R == Relation::kLess) return lhs < rhs;
  if constexpr (R == Relation::kLessEqual) return lhs <= rhs;
  if constexpr (R == Relation::kGreater) return lhs > rhs;
  if constexpr (R == Relation::kGreaterEqual) return lhs >= rhs;
}

// One input's ComparisonParams: its offset (-zero point) and its scale as a
// Q31 multiplier with a right shift.
struct InputRescale {
  int32_t offset = 0;
  QuantizedMultiplier multiplier;

  int32_t apply(int32_t q) const {
    constexpr int kLeftShift = 8;  // ComparisonsPrepare's left_shift
    const int32_t shifted = (offset + q) * (1 << kLeftShift);
    return multiply_by_quantized_multiplier(shifted, multiplier);
  }
};

InputRescale input_rescale(const OpContext& ctx, size_t input) {
  const std::string what = fmt::format("input {}", input);
  const AffineQuantization q = affine_quantization(ctx, ctx.input(input), what);
  // QuantizeMultiplierSmallerThanOneExp aborts outside (0, 1).
  ctx.require(q.scale > 0.0f && q.scale < 1.0f,
              fmt::format("{} has scale {}; TFLM's comparisons need a scale in (0, 1)", what, q.scale));
  return {-q.zero_point, quantize_multiplier(static_cast<double>(q.scale))};
}

// Element values as the comparison sees them: the stored value, or its
// rescaled int32 for quantized inputs.
template <typename T>
struct PlainValues {
  T first(T v) const { return v; }
  T second(T v) const { return v; }
};

struct RescaledValues {
  InputRescale input1, input2;
  int32_t first(int32_t q) const { return input1.apply(q); }
  int32_t second(int32_t q) const { return input2.apply(q); }
};

template <typename T, Relation R, class Values>
struct ComparisonKernel {
  BroadcastShape shape;
  Values values;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const TensorRef& a = io.input(0);
    const TensorRef& b = io.input(1);
    const TensorRef& out = io.output(0);
    BroadcastCursor cursor(shape);
    const int64_t n = out.elements();
    for (int64_t i = 0; i < n; ++i, cursor.advance()) {
      const T x = mem.template load<T>(a, cursor.first());
      const T y = mem.template load<T>(b, cursor.second());
      mem.template store<bool>(out, i, holds<R>(values.first(x), values.second(y)));
    }
  }
};

template <typename T, Relation R, class Values>
PreparedKernel comparison_kernel(const OpContext& ctx, Values values) {
  const Shape& a = ctx.input(0).shape();
  const Shape& b = ctx.input(1).shape();
  BroadcastShape shape(ctx, a, b, ctx.output(0).shape());
  if (a != b) {
    ctx.require(a.size() <= kMaxBroadcastRank && b.size() <= kMaxBroadcastRank &&
                    ctx.output(0).rank() <= kMaxBroadcastRank,
                fmt::format("broadcasting compares up to {} dimensions; shapes {} and {}", kMaxBroadcastRank,
                            shape_to_string(a), shape_to_string(b)));
  }
  return PreparedKernel::of(ComparisonKernel<T, R, Values>{shape, std::move(values)});
}

template <Relation R, typename Q>
PreparedKernel rescaled_comparison(const OpContext& ctx) {
  return comparison_kernel<Q, R>(ctx, RescaledValues{input_rescale(ctx, 0), input_rescale(ctx, 1)});
}

template <Relation R>
PreparedKernel prepare_comparison(const OpContext& ctx) {
  const DataType type = require_two_inputs_of_one_type(ctx);
  ctx.require(ctx.output(0).type() == DataType::kBool,
              fmt::format("output type {} is not supported; the output must be BOOL",
                          data_type_name(ctx.output(0).type())));
  constexpr bool kEquality = R == Relation::kEqual || R == Relation::kNotEqual;
  switch (type) {
    case DataType::kFloat32: return comparison_kernel<float, R>(ctx, PlainValues<float>{});
    case DataType::kInt32: return comparison_kernel<int32_t, R>(ctx, PlainValues<int32_t>{});
    case DataType::kInt64: return comparison_kernel<int64_t, R>(ctx, PlainValues<int64_t>{});
    case DataType::kInt8: return rescaled_comparison<R, int8_t>(ctx);
    case DataType::kUInt8: return rescaled_comparison<R, uint8_t>(ctx);
    case DataType::kInt16:
      if constexpr (R == Relation::kGreater) return rescaled_comparison<R, int16_t>(ctx);
      break;
    case DataType::kBool:
      // Compared as the stored bytes, as TFLM compares its bool arrays.
      if constexpr (kEquality) return comparison_kernel<uint8_t, R>(ctx, PlainValues<uint8_t>{});
      break;
    default: break;
  }
  fail_unsupported_type(ctx, "input", type,
                        kEquality                  ? "BOOL, FLOAT32, INT32, INT64, INT8, UINT8"
                        : R == Relation::kGreater ? "FLOAT32, INT32, INT64, INT8, UINT8, INT16"
                                                   : "FLOAT32, INT32, INT64, INT8, UINT8");
}

}  // namespace

PreparedKernel prepare_equal(const OpContext& ctx) { return prepare_comparison<Relation::kEqual>(ctx); }
PreparedKernel prepare_not_equal(const OpContext& ctx) { return prepare_comparison<Relation::kNotEqual>(ctx); }
PreparedKernel prepare_less(const OpContext& ctx) { return prepare_comparison<Relation::kLess>(ctx); }
PreparedKernel prepare_less_equal(const OpContext& ctx) { return prepare_comparison<Relation::kLessEqual>(ctx); }
PreparedKernel prepare_greater(const OpContext& ctx) { return prepare_comparison<Relation::kGreater>(ctx); }
PreparedKernel prepare_greater_equal(const OpContext& ctx) {
  return prepare_comparison<Relation::kGreaterEqual>(ctx);
}

}  // namespace dmo

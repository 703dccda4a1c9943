// CAST, mirroring TFLM's cast.cc (CastEval, copyToTensor, copyCast): one
// std::transform over the flat tensor, element i loaded and then stored as
// static_cast<To>(from). Inputs INT8, INT16, INT32, UINT32, FLOAT32 and
// BOOL; outputs INT8, INT16, INT32, UINT32 and FLOAT32, as TFLM registers.
// Integer narrowing wraps (two's complement); a float to an integer
// truncates toward zero, and where C++ leaves it undefined (NaN, out of
// range) dmo gives what Cortex-M's VCVT gives: NaN as 0, saturation at the
// 32-bit range, then the integer narrowing (an x86 build of TFLM gives
// INT32_MIN there instead).
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "../elementwise.h"
#include "dmo/ops/kernels.h"

namespace dmo {
namespace {

// A float truncated toward zero into Wide (int32_t or uint32_t), saturating.
template <typename Wide>
Wide truncate_saturating(float value) {
  if (std::isnan(value)) return 0;
  const double truncated = std::trunc(static_cast<double>(value));
  if (truncated <= static_cast<double>(std::numeric_limits<Wide>::min())) return std::numeric_limits<Wide>::min();
  if (truncated >= static_cast<double>(std::numeric_limits<Wide>::max())) return std::numeric_limits<Wide>::max();
  return static_cast<Wide>(truncated);
}

template <typename To, typename From>
To cast_value(From value) {
  if constexpr (std::is_same_v<From, float> && !std::is_same_v<To, float>) {
    using Wide = std::conditional_t<std::is_same_v<To, uint32_t>, uint32_t, int32_t>;
    return static_cast<To>(truncate_saturating<Wide>(value));
  } else {
    return static_cast<To>(value);
  }
}

// BOOL is stored as a byte; any non-zero byte is true.
template <typename From>
using Stored = std::conditional_t<std::is_same_v<From, bool>, uint8_t, From>;

template <typename From, typename To>
PreparedKernel cast_kernel() {
  return map_elements_kernel<Stored<From>, To>([](Stored<From> x) {
    if constexpr (std::is_same_v<From, bool>) {
      return static_cast<To>(x != 0 ? 1 : 0);
    } else {
      return cast_value<To>(x);
    }
  });
}

template <typename From>
PreparedKernel cast_from(const OpContext& ctx) {
  const DataType out = ctx.output(0).type();
  switch (out) {
    case DataType::kInt8: return cast_kernel<From, int8_t>();
    case DataType::kInt16: return cast_kernel<From, int16_t>();
    case DataType::kInt32: return cast_kernel<From, int32_t>();
    case DataType::kUInt32: return cast_kernel<From, uint32_t>();
    case DataType::kFloat32: return cast_kernel<From, float>();
    default: fail_unsupported_type(ctx, "output", out, "INT8, INT16, INT32, UINT32, FLOAT32");
  }
}

}  // namespace

PreparedKernel prepare_cast(const OpContext& ctx) {
  require_operand_counts(ctx, 1, 1);
  require_same_element_count(ctx);
  const DataType in = ctx.input(0).type();
  switch (in) {
    case DataType::kInt8: return cast_from<int8_t>(ctx);
    case DataType::kInt16: return cast_from<int16_t>(ctx);
    case DataType::kInt32: return cast_from<int32_t>(ctx);
    case DataType::kUInt32: return cast_from<uint32_t>(ctx);
    case DataType::kFloat32: return cast_from<float>(ctx);
    case DataType::kBool: return cast_from<bool>(ctx);
    default: fail_unsupported_type(ctx, "input", in, "INT8, INT16, INT32, UINT32, FLOAT32, BOOL");
  }
}

}  // namespace dmo

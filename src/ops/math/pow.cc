// POW. TFLM has no POW kernel; this mirrors TFLite's pow.cc (Eval with
// reference_ops::Pow for equal shapes, BroadcastPow4DSlow otherwise): the
// output in row-major order, base then exponent loaded right before each
// store. FLOAT32: std::pow. INT32: square-and-multiply (wrapping); TFLite
// refuses a negative exponent at eval, which dmo's eval cannot do: it gives 1.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include <fmt/format.h>

#include "../broadcast.h"
#include "../elementwise.h"
#include "dmo/ops/kernels.h"

namespace dmo {
namespace {

constexpr size_t kMaxBroadcastRank = 4;  // TFLite's BroadcastPow4DSlow

// TFLite's IntegerPow: square-and-multiply over the exponent's bits.
int32_t integer_pow(int32_t base, int32_t exponent) {
  uint32_t result = 1;
  uint32_t square = static_cast<uint32_t>(base);
  while (exponent > 0) {
    if (exponent & 1) result *= square;
    square *= square;
    exponent >>= 1;
  }
  return static_cast<int32_t>(result);
}

}  // namespace

PreparedKernel prepare_pow(const OpContext& ctx) {
  const DataType type = require_two_inputs_of_one_type(ctx);
  require_output_type_matches_input(ctx);
  if (ctx.input(0).shape() != ctx.input(1).shape()) {
    const size_t rank = std::max({ctx.input(0).rank(), ctx.input(1).rank(), ctx.output(0).rank()});
    ctx.require(rank <= kMaxBroadcastRank,
                fmt::format("broadcasting supports up to {} dimensions, got {}", kMaxBroadcastRank, rank));
  }
  switch (type) {
    case DataType::kFloat32:
      return broadcast_binary_kernel<float>(ctx, [](float a, float b) { return std::pow(a, b); });
    case DataType::kInt32: return broadcast_binary_kernel<int32_t>(ctx, integer_pow);
    default: fail_unsupported_type(ctx, "input", type, "FLOAT32, INT32");
  }
}

}  // namespace dmo

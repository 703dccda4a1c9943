// SQUARED_DIFFERENCE, mirroring TFLM's squared_difference.cc
// (SquaredDifferenceEval, SquaredDifferencePrepare, PrepareQuantized and its
// SquaredDifference functions) over TFLite's reference_ops::BinaryFunction /
// BroadcastBinaryFunction4DSlow and reference_integer_ops::ElementWise /
// BroadcastBinaryFunction4DSlow: the flat loop when the input shapes are
// equal, the 4-D broadcast loop otherwise, both visiting the output in
// row-major order with a then b loaded right before each store.
//  - FLOAT32, INT32: (a - b) * (a - b) (INT32 wrapping).
//  - INT8 (left shift 7), INT16 (left shift 0, zero points 0): both inputs
//    rescaled to twice the larger input scale as ADD does, the difference
//    squared, then rescaled to the output scale, saturated.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <fmt/format.h>

#include "../broadcast.h"
#include "../elementwise.h"
#include "dmo/ops/eval/fixed_point_math.h"
#include "dmo/ops/fixed_point.h"
#include "dmo/ops/kernels.h"

namespace dmo {
namespace {

constexpr size_t kMaxBroadcastRank = 4;  // TFLM's BroadcastBinaryFunction4DSlow

struct SquaredDifferenceRequantization {
  int32_t input1_offset = 0, input2_offset = 0, output_offset = 0;
  int left_shift = 0;
  QuantizedMultiplier input1, input2, output;
  int32_t min = 0, max = 0;

  int32_t operator()(int32_t a, int32_t b) const {
    const int32_t shifted1 = (input1_offset + a) * (1 << left_shift);
    const int32_t shifted2 = (input2_offset + b) * (1 << left_shift);
    const int32_t raw_diff = multiply_by_quantized_multiplier(shifted1, input1) -
                             multiply_by_quantized_multiplier(shifted2, input2);
    const int32_t squared = static_cast<int32_t>(static_cast<uint32_t>(raw_diff) * static_cast<uint32_t>(raw_diff));
    return std::min(max, std::max(min, multiply_by_quantized_multiplier(squared, output) + output_offset));
  }
};

template <typename T>
PreparedKernel prepare_quantized(const OpContext& ctx, int left_shift) {
  const AffineQuantization in1 = affine_quantization(ctx, ctx.input(0), "input 0");
  const AffineQuantization in2 = affine_quantization(ctx, ctx.input(1), "input 1");
  const AffineQuantization out = affine_quantization(ctx, ctx.output(0), "output");
  if constexpr (std::is_same_v<T, int16_t>) {
    ctx.require(in1.zero_point == 0 && in2.zero_point == 0 && out.zero_point == 0,
                "INT16 operands must have zero point 0");
  } else {
    for (const int32_t zero_point : {in1.zero_point, in2.zero_point, out.zero_point}) {
      ctx.require(zero_point >= -128 && zero_point <= 127, fmt::format("zero point {} is outside INT8", zero_point));
    }
  }
  SquaredDifferenceRequantization r;
  r.input1_offset = -in1.zero_point;
  r.input2_offset = -in2.zero_point;
  r.output_offset = out.zero_point;
  r.left_shift = left_shift;
  const double twice_max_input_scale = 2.0 * static_cast<double>(std::max(in1.scale, in2.scale));
  r.input1 = quantize_multiplier(static_cast<double>(in1.scale) / twice_max_input_scale);
  r.input2 = quantize_multiplier(static_cast<double>(in2.scale) / twice_max_input_scale);
  // (1 << 2 * left_shift) * output_scale is a float product in TFLM.
  const float shifted_output_scale = static_cast<float>(1 << (left_shift * 2)) * out.scale;
  r.output = quantize_multiplier(twice_max_input_scale * twice_max_input_scale / static_cast<double>(shifted_output_scale));
  r.min = std::numeric_limits<T>::min();
  r.max = std::numeric_limits<T>::max();
  return broadcast_binary_kernel<T>(ctx, [r](T a, T b) { return static_cast<T>(r(a, b)); });
}

}  // namespace

PreparedKernel prepare_squared_difference(const OpContext& ctx) {
  const DataType type = require_two_inputs_of_one_type(ctx);
  require_output_type_matches_input(ctx);
  if (ctx.input(0).shape() != ctx.input(1).shape()) {
    const size_t rank = std::max({ctx.input(0).rank(), ctx.input(1).rank(), ctx.output(0).rank()});
    ctx.require(rank <= kMaxBroadcastRank,
                fmt::format("broadcasting supports up to {} dimensions, got {}", kMaxBroadcastRank, rank));
  }
  switch (type) {
    case DataType::kFloat32:
      return broadcast_binary_kernel<float>(ctx, [](float a, float b) {
        const float difference = a - b;
        return difference * difference;
      });
    case DataType::kInt32:
      return broadcast_binary_kernel<int32_t>(ctx, [](int32_t a, int32_t b) {
        const uint32_t difference = static_cast<uint32_t>(a) - static_cast<uint32_t>(b);
        return static_cast<int32_t>(difference * difference);
      });
    case DataType::kInt8: return prepare_quantized<int8_t>(ctx, 7);
    case DataType::kInt16: return prepare_quantized<int16_t>(ctx, 0);
    default: fail_unsupported_type(ctx, "input", type, "FLOAT32, INT32, INT8, INT16");
  }
}

}  // namespace dmo

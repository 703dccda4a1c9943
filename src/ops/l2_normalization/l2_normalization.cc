// L2_NORMALIZATION, mirroring TFLM's l2norm.cc (Prepare, Eval) with TFLite's
// reference_ops::L2Normalization (float, epsilon 1e-6) and
// reference_integer_ops::L2Normalization (int8): along the last dimension,
// each row is read once to sum its squares, then read again element by
// element, each quotient stored right after its element is loaded.
//  - FLOAT32: x / max(sqrt(sum of squares), 1e-6), the sum in float.
//  - INT8: (x - zero point) times 1 / sqrt(sum of squares) as a fixed-point
//    multiplier (inv_sqrt.h) and 2^7: the output in units of 1/128,
//    saturated; the output's own quantization is not used, as in TFLM.
// Up to 4 dimensions, and no fused activation (TFLM refuses one).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <variant>

#include <fmt/format.h>

#include "../elementwise.h"
#include "../math/inv_sqrt.h"
#include "dmo/ops/fixed_point.h"
#include "dmo/ops/kernels.h"

namespace dmo {
namespace {

constexpr size_t kMaxRank = 4;

struct L2NormFloatKernel {
  int64_t rows = 0, depth = 0;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const TensorRef& in = io.input(0);
    const TensorRef& out = io.output(0);
    constexpr float kEpsilon = 1e-6f;
    for (int64_t r = 0; r < rows; ++r) {
      float squared_l2_norm = 0;
      for (int64_t c = 0; c < depth; ++c) {
        const float value = mem.template load<float>(in, depth * r + c);
        squared_l2_norm += value * value;
      }
      const float l2_norm = std::max(std::sqrt(squared_l2_norm), kEpsilon);
      for (int64_t c = 0; c < depth; ++c) {
        mem.template store<float>(out, depth * r + c, mem.template load<float>(in, depth * r + c) / l2_norm);
      }
    }
  }
};

struct L2NormInt8Kernel {
  int64_t rows = 0, depth = 0;
  int32_t zero_point = 0;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const TensorRef& in = io.input(0);
    const TensorRef& out = io.output(0);
    constexpr int kOutputScale = 7;  // the output in units of 1/128
    for (int64_t r = 0; r < rows; ++r) {
      int32_t sum_of_squares = 0;
      for (int64_t c = 0; c < depth; ++c) {
        const int32_t value = mem.template load<int8_t>(in, depth * r + c) - zero_point;
        sum_of_squares += value * value;
      }
      QuantizedMultiplier inv_l2_norm = inverse_sqrt_multiplier(sum_of_squares);
      inv_l2_norm.shift += kOutputScale;
      for (int64_t c = 0; c < depth; ++c) {
        const int32_t value = mem.template load<int8_t>(in, depth * r + c) - zero_point;
        const int32_t scaled = multiply_by_quantized_multiplier(value, inv_l2_norm);
        mem.template store<int8_t>(out, depth * r + c, static_cast<int8_t>(std::clamp(scaled, -128, 127)));
      }
    }
  }
};

}  // namespace

PreparedKernel prepare_l2_normalization(const OpContext& ctx) {
  require_operand_counts(ctx, 1, 1);
  require_output_type_matches_input(ctx);
  const Shape& in = ctx.input(0).shape();
  ctx.require(!in.empty() && in.size() <= kMaxRank,
              fmt::format("input must have 1 to {} dimensions, got {}", kMaxRank, in.size()));
  ctx.require(ctx.output(0).shape() == in, fmt::format("output shape {} differs from input shape {}",
                                                       shape_to_string(ctx.output(0).shape()), shape_to_string(in)));
  ctx.require(elementwise_activation(ctx) == Activation::kNone, "a fused activation is not supported");
  const int64_t depth = in.back();
  const int64_t rows = depth == 0 ? 0 : ctx.input(0).elements() / depth;
  const DataType type = ctx.input(0).type();
  switch (type) {
    case DataType::kFloat32: return PreparedKernel::of(L2NormFloatKernel{rows, depth});
    case DataType::kInt8: {
      const AffineQuantization q = affine_quantization(ctx, ctx.input(0), "input");
      return PreparedKernel::of(L2NormInt8Kernel{rows, depth, q.zero_point});
    }
    default: fail_unsupported_type(ctx, "input", type, "FLOAT32, INT8");
  }
}

}  // namespace dmo

// PRELU, mirroring TFLM's prelu.cc / prelu_common.cc (PreluEval,
// PreluPrepare, CalculatePreluParams, BroadcastPrelu4DSlowFloat) and
// TFLite's reference_ops::BroadcastPrelu4DSlow (int8, int16 with int8
// alpha). Input and alpha broadcast (up to 4 dimensions) to the output,
// visited in row-major order (ops/broadcast.h).
//  - FLOAT32: x >= 0 ? x : x * alpha.
//  - INT8, INT16: x - input_zero_point; >= 0 scaled by input_scale /
//    output_scale, else times (alpha - alpha_zero_point) scaled by
//    input_scale * alpha_scale / output_scale; plus the output zero point,
//    saturated to the type.
// Order: TFLM's quantized loop loads alpha only for negative inputs; dmo
// loads it for every element (after the input, before the store), so the
// safe overlap it finds holds whatever the data.
#include <algorithm>
#include <cstdint>
#include <limits>

#include <fmt/format.h>

#include "../broadcast.h"
#include "../elementwise.h"
#include "dmo/ops/fixed_point.h"
#include "dmo/ops/kernels.h"

namespace dmo {
namespace {

constexpr size_t kMaxRank = 4;  // TFLM's BroadcastPrelu4DSlow

struct PreluFloat {
  float operator()(float x, float alpha) const { return x >= 0.0f ? x : x * alpha; }
};

struct PreluRequantization {
  int32_t input_offset = 0, alpha_offset = 0, output_offset = 0;
  QuantizedMultiplier identity, alpha;
  int32_t min = 0, max = 0;

  template <typename T, typename U>
  T operator()(T x, U a) const {
    const int32_t input_value = input_offset + x;
    const int32_t scaled = input_value >= 0
                               ? multiply_by_quantized_multiplier(input_value, identity)
                               : multiply_by_quantized_multiplier(input_value * (alpha_offset + a), alpha);
    return static_cast<T>(std::min(max, std::max(min, scaled + output_offset)));
  }
};

// out[i] = f(input[ii], alpha[ia]) over the output in row-major order.
template <typename T, typename U, class F>
struct PreluKernel {
  BroadcastShape shape;
  F f;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const TensorRef& input = io.input(0);
    const TensorRef& alpha = io.input(1);
    const TensorRef& out = io.output(0);
    BroadcastCursor cursor(shape);
    const int64_t n = out.elements();
    for (int64_t i = 0; i < n; ++i, cursor.advance()) {
      const T x = mem.template load<T>(input, cursor.first());
      const U a = mem.template load<U>(alpha, cursor.second());
      mem.template store<T>(out, i, f(x, a));
    }
  }
};

template <typename T, typename U, class F>
PreparedKernel prelu_kernel(const OpContext& ctx, F f) {
  BroadcastShape shape(ctx, ctx.input(0).shape(), ctx.input(1).shape(), ctx.output(0).shape());
  return PreparedKernel::of(PreluKernel<T, U, F>{shape, std::move(f)});
}

template <typename T>
PreparedKernel prepare_quantized_prelu(const OpContext& ctx) {
  const AffineQuantization in = affine_quantization(ctx, ctx.input(0), "input");
  const AffineQuantization alpha = affine_quantization(ctx, ctx.input(1), "alpha");
  const AffineQuantization out = affine_quantization(ctx, ctx.output(0), "output");
  PreluRequantization r;
  r.identity = quantize_multiplier(static_cast<double>(in.scale) / static_cast<double>(out.scale));
  r.alpha = quantize_multiplier(static_cast<double>(in.scale) * static_cast<double>(alpha.scale) /
                                static_cast<double>(out.scale));
  r.input_offset = -in.zero_point;
  r.alpha_offset = -alpha.zero_point;
  r.output_offset = out.zero_point;
  r.min = std::numeric_limits<T>::min();
  r.max = std::numeric_limits<T>::max();
  return prelu_kernel<T, int8_t>(ctx, r);
}

}  // namespace

PreparedKernel prepare_prelu(const OpContext& ctx) {
  require_operand_counts(ctx, 2, 1);
  require_output_type_matches_input(ctx);
  const size_t rank = std::max({ctx.input(0).rank(), ctx.input(1).rank(), ctx.output(0).rank()});
  ctx.require(rank <= kMaxRank, fmt::format("PRELU supports up to {} dimensions, got {}", kMaxRank, rank));
  const DataType type = ctx.input(0).type();
  const DataType alpha_type = ctx.input(1).type();
  const DataType wanted_alpha = type == DataType::kFloat32 ? DataType::kFloat32 : DataType::kInt8;
  switch (type) {
    case DataType::kFloat32:
    case DataType::kInt8:
    case DataType::kInt16: break;
    default: fail_unsupported_type(ctx, "input", type, "FLOAT32, INT8, INT16");
  }
  ctx.require(alpha_type == wanted_alpha, fmt::format("alpha type {} with {} input is not supported; alpha must be {}",
                                                      data_type_name(alpha_type), data_type_name(type),
                                                      data_type_name(wanted_alpha)));
  if (type == DataType::kFloat32) return prelu_kernel<float, float>(ctx, PreluFloat{});
  if (type == DataType::kInt8) return prepare_quantized_prelu<int8_t>(ctx);
  return prepare_quantized_prelu<int16_t>(ctx);
}

}  // namespace dmo

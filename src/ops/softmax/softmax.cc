// SOFTMAX, mirroring TFLM's reference_ops::Softmax (float, and its quantized
// overload for int8 -> int8 / int16 and uint8), over the last dimension,
// row by row, each row's input read in passes.
//  - FLOAT32: TFLite's reference in its order: the row max; then per
//    element exp((x - max) * beta) stored in the output as it is summed;
//    then each output element read back and divided by the sum in place.
//    Each exponential is written right after its input element is read, so
//    one row still allows the whole output over its input.
//  - INT8 -> INT8 or INT16, UINT8 -> UINT8: TFLite's quantized reference
//    Softmax: differences from the row max scaled by beta * input_scale to
//    Q5.26, gemmlowp fixed-point exp, a Q12.19 sum, its fixed-point
//    reciprocal, and the output in units of 1/256 (8-bit) or 1/65536, each
//    output element stored once in the last of three passes over the input.
//  - INT16 -> INT16: TFLite's reference_ops::SoftmaxInt16 with the tables
//    of TFLM's SoftmaxPrepare (int16_softmax_tables.h): the row max; then
//    per element exp(x - max) from the exp table stored in the output as a
//    cache and read back into a 32-bit sum; the sum's reciprocal from the
//    1 / (1 + x) table; then each cached output element read and
//    overwritten with exp * reciprocal, rounded, in [0, 32767].
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include <fmt/format.h>

#include "../elementwise.h"
#include "../instance_kernel.h"
#include "dmo/ops/eval/fixed_point_math.h"
#include "dmo/ops/fixed_point.h"
#include "int16_softmax_tables.h"
#include "dmo/ops/eval/softmax_loops.h"
#include "dmo/ops/kernels.h"

namespace dmo {
namespace {

constexpr int kScaledDiffIntegerBits = kSoftmaxScaledDiffIntegerBits;

SoftmaxRows softmax_rows(const OpContext& ctx) {
  require_operand_counts(ctx, 1, 1);
  require_same_element_count(ctx);
  const TensorRef& in = ctx.input(0);
  ctx.require(in.rank() >= 1, "input must have at least 1 dimension");
  ctx.require(ctx.output(0).rank() >= 1 && ctx.output(0).dim(ctx.output(0).rank() - 1) == in.dim(in.rank() - 1),
              fmt::format("output shape {} does not match input shape {}", shape_to_string(ctx.output(0).shape()),
                          shape_to_string(in.shape())));
  SoftmaxRows r;
  r.depth = in.dim(in.rank() - 1);
  r.rows = r.depth == 0 ? 0 : in.elements() / r.depth;
  return r;
}

float softmax_beta(const OpContext& ctx) {
  const auto* params = std::get_if<SoftmaxParams>(&ctx.op->params);
  return params ? params->beta : 1.0f;
}

// The prepared FLOAT32 SOFTMAX.
struct SoftmaxFloatKernel {
  SoftmaxRows shape;
  float beta = 1.0f;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const;
};

template <class Memory>
void SoftmaxFloatKernel::eval(const KernelIO& io, Memory& mem) const {
  softmax_float_loops(shape, beta, io, mem);
}

SoftmaxScaling softmax_scaling(const OpContext& ctx, float input_scale) {
  const double max_real_multiplier = static_cast<double>((int64_t{1} << 31) - 1);
  const double real_multiplier =
      std::min<double>(static_cast<double>(softmax_beta(ctx)) * static_cast<double>(input_scale) *
                           static_cast<double>(1 << (31 - kScaledDiffIntegerBits)),
                       max_real_multiplier);
  ctx.require(real_multiplier > 1.0,
              fmt::format("beta * input scale = {} is too small", real_multiplier / (1 << (31 - kScaledDiffIntegerBits))));
  SoftmaxScaling s;
  s.input_beta = quantize_multiplier(real_multiplier);
  s.diff_min = -fixed::input_radius(kScaledDiffIntegerBits, s.input_beta.shift);
  return s;
}

// The prepared INT16 -> INT16 SOFTMAX.
struct SoftmaxInt16Kernel {
  SoftmaxRows shape;
  QuantizedMultiplier input_multiplier;  // differences onto [-65535, 0] = [-10, 0]

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const;
};

template <class Memory>
void SoftmaxInt16Kernel::eval(const KernelIO& io, Memory& mem) const {
  const TensorRef& in = io.input(0);
  const TensorRef& out = io.output(0);
  const Int16Table& one_over_one_plus_x = int16_softmax_one_over_one_plus_x_table();
  for (int64_t i = 0; i < shape.rows; ++i) {
    const int64_t row = i * shape.depth;
    int16_t max_in_row = std::numeric_limits<int16_t>::min();
    for (int64_t c = 0; c < shape.depth; ++c) max_in_row = std::max(max_in_row, mem.template load<int16_t>(in, row + c));

    // Q16.15; prepare bounds the row so it cannot overflow.
    int32_t sum_of_exps = 0;
    for (int64_t c = 0; c < shape.depth; ++c) {
      const int32_t diff = mem.template load<int16_t>(in, row + c) - max_in_row;
      mem.template store<int16_t>(out, row + c, int16_softmax_exp(diff, input_multiplier));
      sum_of_exps += mem.template load<int16_t>(out, row + c);
    }

    // The sum normalized to 17 bits, recentred from [65536, 131071] onto
    // the table's [-32768, 32767] (x = sum - 1), saturated.
    const int headroom_plus_one = std::countl_zero(static_cast<uint32_t>(sum_of_exps));
    const auto shifted_sum =
        static_cast<int32_t>(((static_cast<int64_t>(sum_of_exps) << (headroom_plus_one - 1)) + (1 << 13)) >> 14);
    const int32_t recentred = std::clamp(shifted_sum - ((1 << 15) + (1 << 16)), -32768, 32767);
    const int16_t reciprocal = int16_table_lookup(static_cast<int16_t>(recentred), one_over_one_plus_x);

    // A real row sums to at least its maximum's exp(0); only the
    // address-only policy, whose loads read zeros, sums below 2, where the
    // shifts would be undefined: keep them defined there.
    const int right_shift = std::max(31 - headroom_plus_one, 1);
    const int64_t rounding = int64_t{1} << (right_shift - 1);
    for (int64_t c = 0; c < shape.depth; ++c) {
      const auto result = static_cast<int32_t>(
          (static_cast<int64_t>(mem.template load<int16_t>(out, row + c)) * reciprocal + rounding) >> right_shift);
      mem.template store<int16_t>(out, row + c, static_cast<int16_t>(std::clamp(result, 0, 32767)));
    }
  }
}

void require_output_quantization(const OpContext& ctx, int32_t zero_point, float scale, float tolerance) {
  const AffineQuantization out = affine_quantization(ctx, ctx.output(0), "output");
  ctx.require(out.zero_point == zero_point && std::abs(out.scale - scale) <= tolerance,
              fmt::format("{} output must have zero point {} and scale {}, got {} and {}",
                          data_type_name(ctx.output(0).type()), zero_point, scale, out.zero_point, out.scale));
}

[[noreturn]] void fail_unsupported_output(const OpContext& ctx, std::string_view supported) {
  ctx.fail(fmt::format("output type {} with {} input is not supported; supported: {}",
                       data_type_name(ctx.output(0).type()), data_type_name(ctx.input(0).type()), supported));
}

// The quantized nest (In -> Out) as one aggregate.
template <typename In, typename Out>
QuantizedSoftmaxLoops<In, Out> quantized_softmax_loops(const OpContext& ctx, const SoftmaxRows& shape) {
  return {shape, softmax_scaling(ctx, affine_quantization(ctx, ctx.input(0), "input").scale)};
}


// An int8 or uint8 softmax (the same type in and out) with its device
// path, the shared nest.
template <typename T>
PreparedKernel with_device_path(const QuantizedSoftmaxLoops<T, T>& loops, DataType type) {
  PreparedKernel p = PreparedKernel::of(loops);
  auto device = std::make_shared<DeviceKernel>();
  device->loops = DeviceLoops::kSoftmax;
  device->type = type;
  device->softmax_rows = loops.shape;
  device->softmax_scaling = loops.scaling;
  p.device = std::move(device);
  return p;
}

// TFLM's CalculateSoftmaxParams for INT16 input, and the row bound of the sum.
QuantizedMultiplier int16_input_multiplier(const OpContext& ctx) {
  require_output_quantization(ctx, 0, 1.0f / 32768, 0.001f / 32768);
  const TensorRef& in = ctx.input(0);
  // Every exponential is at most 32767: longer rows could overflow the 32-bit sum.
  ctx.require(in.dim(in.rank() - 1) <= 65535,
              fmt::format("INT16 rows of {} elements overflow the 32-bit sum of exponentials (at most 65535)",
                          in.dim(in.rank() - 1)));
  const float input_scale = affine_quantization(ctx, in, "input").scale;
  const QuantizedMultiplier m = int16_softmax_input_multiplier(input_scale, softmax_beta(ctx));
  ctx.require(m.shift < 31, fmt::format("beta * input scale = {} is too large", static_cast<double>(input_scale) *
                                                                                      softmax_beta(ctx)));
  return m;
}

}  // namespace

PreparedKernel prepare_softmax(const OpContext& ctx) {
  const SoftmaxRows shape = softmax_rows(ctx);
  const DataType in = ctx.input(0).type();
  const DataType out = ctx.output(0).type();
  switch (in) {
    case DataType::kFloat32:
    {
      if (out != DataType::kFloat32) fail_unsupported_output(ctx, "FLOAT32");
      PreparedKernel p = PreparedKernel::of(SoftmaxFloatKernel{shape, softmax_beta(ctx)});
      auto device = std::make_shared<DeviceKernel>();
      device->loops = DeviceLoops::kSoftmax;
      device->type = in;
      device->softmax_rows = shape;
      device->softmax_beta = softmax_beta(ctx);
      p.device = std::move(device);
      return p;
    }
    case DataType::kInt8:
      if (out == DataType::kInt8) {
        require_output_quantization(ctx, -128, 1.0f / 256, 0.0f);
        return with_device_path(quantized_softmax_loops<int8_t, int8_t>(ctx, shape), in);
      }
      if (out == DataType::kInt16) {
        require_output_quantization(ctx, -32768, 1.0f / 65536, 0.001f / 65536);
        return instance_kernel(quantized_softmax_loops<int8_t, int16_t>(ctx, shape),
                               "QuantizedSoftmaxLoops<int8_t, int16_t>", in);
      }
      fail_unsupported_output(ctx, "INT8, INT16");
    case DataType::kUInt8:
      if (out != DataType::kUInt8) fail_unsupported_output(ctx, "UINT8");
      require_output_quantization(ctx, 0, 1.0f / 256, 0.001f / 256);
      return with_device_path(quantized_softmax_loops<uint8_t, uint8_t>(ctx, shape), in);
    case DataType::kInt16:
      if (out != DataType::kInt16) fail_unsupported_output(ctx, "INT16");
      return PreparedKernel::of(SoftmaxInt16Kernel{shape, int16_input_multiplier(ctx)});
    default:
      fail_unsupported_type(ctx, "input", in, "FLOAT32, INT8, INT16, UINT8");
  }
}

}  // namespace dmo

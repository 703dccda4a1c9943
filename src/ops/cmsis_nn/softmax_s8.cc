// SOFTMAX in the cmsis-nn families, mirroring TFLM's kernels/cmsis_nn/softmax.cc
// (SoftmaxEval): INT8 -> INT8 goes to CMSIS-NN's arm_softmax_s8 and INT8 ->
// INT16 to arm_softmax_s8_s16, both arm_nn_softmax_common_s8 without MVE
// (ARM-software/CMSIS-NN Source/SoftmaxFunctions/arm_softmax_s8.c at
// 24508950; Source/NNSupportFunctions/arm_nn_softmax_common_s8.c V.1.0.1):
// per row, the max from element 0 on, the sum of exponentials, then each
// output element stored after its input element is read once more; no DSP
// variant, no scratch buffer. FLOAT32 runs TFLM's reference kernel; INT16
// input goes to arm_softmax_s16 (softmax_s16.cc).
// CMSIS-NN computes TFLM's reference values (gemmlowp exp, the Q12.19 sum,
// its reciprocal, the output in 1/256 or 1/65536 units), bit-exact.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <variant>

#include "../elementwise.h"
#include "dmo/ops/eval/fixed_point_math.h"
#include "cmsis_nn_kernels.h"
#include "dmo/ops/fixed_point.h"
#include "dmo/ops/kernels.h"

namespace dmo {
namespace {

constexpr int kScaledDiffIntegerBits = 5;
constexpr int kAccumulationBits = 12;

template <typename Out>
struct CmsisSoftmaxS8 {
  int64_t rows = 0, row_size = 0;
  QuantizedMultiplier input_beta;  // difference from the row max -> Q5.26 (a left shift)
  int32_t diff_min = 0;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const TensorRef& in = io.input(0);
    const TensorRef& out = io.output(0);
    auto exp_of = [this](int32_t diff) {
      return fixed::exp_on_negative_values(fixed::Q<kScaledDiffIntegerBits>{multiply_by_quantized_multiplier(diff, input_beta)});
    };
    constexpr int32_t kOutMin = std::numeric_limits<Out>::min();
    constexpr int32_t kOutMax = std::numeric_limits<Out>::max();
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t row = r * row_size;
      int8_t max = mem.template load<int8_t>(in, row);
      for (int64_t c = 1; c < row_size; ++c) max = std::max(max, mem.template load<int8_t>(in, row + c));

      fixed::Q<kAccumulationBits> sum{0};
      for (int64_t c = 0; c < row_size; ++c) {
        const int32_t diff = mem.template load<int8_t>(in, row + c) - max;
        if (diff >= diff_min) sum = sum + fixed::rescale<kAccumulationBits>(exp_of(diff));
      }
      int bits_over_unit = 0;
      const fixed::Q<0> scale{fixed::reciprocal(sum.raw, kAccumulationBits, &bits_over_unit)};
      // A shift of 32 or more (sums of 512 or more) is undefined in both
      // TFLM and CMSIS-NN; the exact rounded quotient is 0.
      const int exponent = bits_over_unit + 31 - static_cast<int>(sizeof(Out) * 8);

      for (int64_t c = 0; c < row_size; ++c) {
        const int32_t diff = mem.template load<int8_t>(in, row + c) - max;
        int32_t result = kOutMin;
        if (diff >= diff_min) {
          const int32_t scaled = exponent >= 32 ? 0 : rounding_divide_by_pot((scale * exp_of(diff)).raw, std::max(exponent, 0));
          result = std::clamp(scaled + kOutMin, kOutMin, kOutMax);
        }
        mem.template store<Out>(out, row + c, static_cast<Out>(result));
      }
    }
  }
};

template <typename Out>
PreparedKernel cmsis_softmax(const OpContext& ctx, const char* function) {
  const TensorRef& in = ctx.input(0);
  const auto* params = std::get_if<SoftmaxParams>(&ctx.op->params);
  const float beta = params ? params->beta : 1.0f;
  CmsisSoftmaxS8<Out> k;
  k.row_size = in.dim(in.rank() - 1);
  k.rows = k.row_size == 0 ? 0 : in.elements() / k.row_size;
  // TFLM's PreprocessSoftmaxScaling and CalculateInputRadius (the reference
  // prepare has already refused a multiplier of one or less).
  const double real_multiplier = std::min<double>(
      static_cast<double>(beta) * static_cast<double>(affine_quantization(ctx, in, "input").scale) *
          static_cast<double>(1 << (31 - kScaledDiffIntegerBits)),
      static_cast<double>((int64_t{1} << 31) - 1));
  k.input_beta = quantize_multiplier(real_multiplier);
  k.diff_min = -fixed::input_radius(kScaledDiffIntegerBits, k.input_beta.shift);
  PreparedKernel prepared = PreparedKernel::of(std::move(k));
  prepared.implementation = function;
  return prepared;
}

}  // namespace

std::optional<PreparedKernel> prepare_cmsis_nn_softmax(const OpContext& ctx) {
  // The reference prepare makes TFLM's checks; its kernel is not used.
  prepare_softmax(ctx);
  if (ctx.input(0).type() == DataType::kInt16) return prepare_cmsis_nn_softmax_s16(ctx);
  if (ctx.input(0).type() != DataType::kInt8) return std::nullopt;
  if (ctx.output(0).type() == DataType::kInt8) return cmsis_softmax<int8_t>(ctx, "arm_softmax_s8");
  return cmsis_softmax<int16_t>(ctx, "arm_softmax_s8_s16");
}

}  // namespace dmo

// SVDF in the cmsis-nn families, mirroring TFLM's kernels/cmsis_nn/svdf.cc
// (CmsisNnPrepareSvdf, EvalIntegerSVDF) over CMSIS-NN's arm_svdf_s8 (int8
// state, with arm_nn_vec_mat_mult_t_s8) and arm_svdf_state_s16_s8 (int16
// state, with arm_nn_vec_mat_mult_t_svdf_s8), as read at CMSIS-NN commits
// 0ec78f420f4fa455519a235014cd11d21f391ec0 (arm_svdf_s8.c,
// arm_nn_vec_mat_mult_t_s8.c) and 146a7872057043c3e45e24a090ca563544dd45a6
// (arm_svdf_state_s16_s8.c, arm_nn_vec_mat_mult_t_svdf_s8.c).
// The glue sends int8 input to CMSIS-NN and float to EvalFloatSvdfReference.
// Per inference:
//  1. memmove of the state one element left (ascending, since the
//     destination lies below the source),
//  2. per batch, the feature matrix times the input row: the portable path
//     takes 3 filters per pass over the input (then 1 at a time), the DSP
//     path 2 (then the odd one), reading the input in 4-byte words,
//  3. per batch and filter the state row dotted with the time weights into
//     the first scratch buffer,
//  4. per unit the bias plus its `rank` filter sums into the second scratch
//     buffer, then each output element requantized once.
// Every input read comes before the first output write in both paths.
// CMSIS-NN's arithmetic differs from TFLM's reference in two ways, and this
// kernel computes CMSIS-NN's: the state zero point is neither added to the
// new state value nor subtracted in the time dot product, and the new state
// value is clamped to the int16 range (the glue's input_activation) before
// it is narrowed to the state type (an int8 state wraps instead of
// saturating).
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "cmsis_nn_kernels.h"
#include "dmo/model/data_type.h"
#include "dmo/ops/fixed_point.h"
#include "dmo/ops/kernels.h"

namespace dmo {

namespace {

constexpr size_t kInput = 0, kWeightsFeature = 1, kWeightsTime = 2, kBias = 3, kState = 4;

struct CmsisSvdfSizes {
  int64_t batch = 0, input_size = 0, filters = 0, memory = 0, rank = 0, units = 0;
};

int32_t zero_point_or_zero(const Tensor& t) {
  return t.quantization.zero_point.empty() ? 0 : static_cast<int32_t>(t.quantization.zero_point[0]);
}

// arm_svdf_s8 / arm_svdf_state_s16_s8 with state and time weights of type T.
template <typename T>
struct CmsisSvdfKernel {
  CmsisSvdfSizes s;
  bool dsp = false;
  QuantizedMultiplier to_state, to_output;
  int32_t input_zero_point = 0, output_zero_point = 0;
  // The glue's two scratch buffers: per batch and filter, per batch and unit.
  mutable std::vector<int32_t> filter_sums, unit_sums;

  // The vector-matrix product's result for one filter, as stored into the state.
  T state_value(int32_t accumulator) const {
    int32_t value = multiply_by_quantized_multiplier(accumulator, to_state);
    value = std::clamp<int32_t>(value, std::numeric_limits<int16_t>::min(), std::numeric_limits<int16_t>::max());
    return static_cast<T>(value);
  }

  // Filters [first, first + count) of batch b, read together in one pass over the input row.
  template <class Memory>
  void feature_rows(const KernelIO& io, Memory& mem, int64_t b, int64_t first, int64_t count) const {
    const TensorRef& input = io.input(kInput);
    const TensorRef& state = io.input(kState);
    const TensorRef& weights_feature = io.input(kWeightsFeature);
    int32_t acc[3] = {0, 0, 0};
    for (int64_t c = 0; c < s.input_size; ++c) {
      const int32_t x = mem.template load<int8_t>(input, b * s.input_size + c) - input_zero_point;
      for (int64_t r = 0; r < count; ++r) {
        const int32_t w = mem.template load<int8_t>(weights_feature, (first + r) * s.input_size + c);
        acc[r] = static_cast<int32_t>(static_cast<uint32_t>(acc[r]) + static_cast<uint32_t>(x * w));
      }
    }
    for (int64_t r = 0; r < count; ++r) {
      mem.template store<T>(state, ((b * s.filters) + first + r) * s.memory + s.memory - 1, state_value(acc[r]));
    }
  }

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const TensorRef& state = io.input(kState);
    const TensorRef& weights_time = io.input(kWeightsTime);
    const TensorRef& output = io.output(0);
    const bool has_bias = io.has_input(kBias);

    const int64_t state_elements = s.batch * s.filters * s.memory;
    for (int64_t i = 0; i + 1 < state_elements; ++i) {
      mem.template store<T>(state, i, mem.template load<T>(state, i + 1));
    }
    const int64_t group = dsp ? 2 : 3;
    for (int64_t b = 0; b < s.batch; ++b) {
      int64_t f = 0;
      for (; f + group <= s.filters; f += group) feature_rows(io, mem, b, f, group);
      for (; f < s.filters; ++f) feature_rows(io, mem, b, f, 1);
    }
    for (int64_t b = 0; b < s.batch; ++b) {
      for (int64_t f = 0; f < s.filters; ++f) {
        uint32_t sum = 0;
        for (int64_t t = 0; t < s.memory; ++t) {
          const int32_t w = mem.template load<T>(weights_time, f * s.memory + t);
          const int32_t v = mem.template load<T>(state, (b * s.filters + f) * s.memory + t);
          sum += static_cast<uint32_t>(w * v);
        }
        filter_sums[static_cast<size_t>(b * s.filters + f)] = static_cast<int32_t>(sum);
      }
    }
    for (int64_t b = 0; b < s.batch; ++b) {
      for (int64_t u = 0; u < s.units; ++u) {
        uint32_t sum = has_bias ? static_cast<uint32_t>(mem.template load<int32_t>(io.input(kBias), u)) : 0u;
        for (int64_t r = 0; r < s.rank; ++r) {
          sum += static_cast<uint32_t>(filter_sums[static_cast<size_t>(b * s.filters + u * s.rank + r)]);
        }
        unit_sums[static_cast<size_t>(b * s.units + u)] = static_cast<int32_t>(sum);
      }
    }
    for (int64_t i = 0; i < s.batch * s.units; ++i) {
      const int32_t value =
          multiply_by_quantized_multiplier(unit_sums[static_cast<size_t>(i)], to_output) + output_zero_point;
      mem.template store<int8_t>(output, i, static_cast<int8_t>(std::clamp<int32_t>(value, -128, 127)));
    }
  }
};

template <typename T>
PreparedKernel prepare_cmsis_svdf(const OpContext& ctx, const CmsisSvdfSizes& s) {
  const TensorRef& input = ctx.input(kInput);
  const TensorRef& weights_feature = ctx.input(kWeightsFeature);
  const TensorRef& weights_time = ctx.input(kWeightsTime);
  const TensorRef& state = ctx.input(kState);
  const TensorRef& output = ctx.output(0);
  const float input_scale = input.tensor->quantization.scale[0];
  const float feature_scale = weights_feature.tensor->quantization.scale[0];
  const float time_scale = weights_time.tensor->quantization.scale[0];
  const float state_scale = state.tensor->quantization.scale[0];
  const float output_scale = output.tensor->quantization.scale[0];
  CmsisSvdfKernel<T> k;
  k.s = s;
  k.dsp = ctx.family == KernelFamily::kCmsisNnDsp;
  // The glue forms both scales in float, then widens them.
  k.to_state = quantize_multiplier(static_cast<double>(input_scale * feature_scale / state_scale));
  k.to_output = quantize_multiplier(static_cast<double>(state_scale * time_scale / output_scale));
  k.input_zero_point = zero_point_or_zero(*input.tensor);
  k.output_zero_point = zero_point_or_zero(*output.tensor);
  k.filter_sums.resize(static_cast<size_t>(s.batch * s.filters));
  k.unit_sums.resize(static_cast<size_t>(s.batch * s.units));
  PreparedKernel prepared = PreparedKernel::of(std::move(k));
  const std::string_view function = sizeof(T) == 1 ? "arm_svdf_s8" : "arm_svdf_state_s16_s8";
  prepared.implementation = fmt::format("{} ({})", function, ctx.family == KernelFamily::kCmsisNnDsp ? "DSP" : "portable");
  prepared.scratch = {{s.batch * s.filters * 4, "int32 time dot product per batch and filter"},
                      {s.batch * s.units * 4, "int32 sum per batch and unit"}};
  return prepared;
}

}  // namespace

std::optional<PreparedKernel> prepare_cmsis_nn_svdf(const OpContext& ctx) {
  // The reference prepare makes the glue's checks (and names the op in its messages).
  (void)prepare_svdf(ctx);
  if (ctx.input(kInput).type() != DataType::kInt8) return std::nullopt;  // EvalFloatSvdfReference
  const auto* params = std::get_if<SvdfParams>(&ctx.op->params);
  CmsisSvdfSizes s;
  s.batch = ctx.input(kInput).dim(0);
  s.input_size = ctx.input(kInput).dim(1);
  s.filters = ctx.input(kWeightsFeature).dim(0);
  s.memory = ctx.input(kWeightsTime).dim(1);
  s.rank = params->rank;
  s.units = s.filters / s.rank;
  if (ctx.input(kWeightsTime).type() == DataType::kInt16) return prepare_cmsis_svdf<int16_t>(ctx, s);
  return prepare_cmsis_svdf<int8_t>(ctx, s);
}

}  // namespace dmo

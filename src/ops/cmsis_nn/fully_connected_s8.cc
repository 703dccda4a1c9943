// FULLY_CONNECTED in the cmsis-nn families, mirroring TFLM's
// kernels/cmsis_nn/fully_connected.cc (EvalQuantizedInt8): INT8 goes to
// CMSIS-NN's arm_fully_connected_s8 (per-tensor weights) or
// arm_fully_connected_per_channel_s8 (per-channel weights), both one call of
// arm_nn_vec_mat_mult_t_s8 / arm_nn_vec_mat_mult_t_per_ch_s8 per batch row
// (CMSIS-NN Source/FullyConnectedFunctions/arm_fully_connected_s8.c at
// c7b7a74c; Source/NNSupportFunctions/arm_nn_vec_mat_mult_t_s8.c and
// arm_nn_vec_mat_mult_t_per_ch_s8.c at 058a6a11, whose loops are the same).
// Other types run TFLM's reference kernel, as the glue does.
//  - portable C: three weight rows (output units) per step, each step
//    reading the whole input row once per column for all three sums, then
//    storing the three outputs; the units % 3 left over one at a time.
//  - DSP: two units per step, the input row read 4 bytes at a time
//    (arm_nn_read_s8x4_ia) and its depth % 4 tail byte by byte, then the two
//    outputs stored; an odd last unit alone.
// The kernel-sum buffer is only used with MVE: arm_fully_connected_s8_
// get_buffer_size is 0 without it (arm_fully_connected_get_buffer_sizes_s8.c
// at 6ebba504), so the glue requests no scratch for these families.
// Values are TFLM's reference values (bias added to the sum, then
// MultiplyByQuantizedMultiplier, output offset, clamp): only the order of
// accesses differs.
#include <array>
#include <variant>

#include "../conv2d/conv_arithmetic.h"
#include "../conv2d/conv_quantization.h"
#include "cmsis_nn_kernels.h"
#include "dmo/ops/kernels.h"

namespace dmo {
namespace {

struct CmsisFullyConnectedS8 {
  int64_t batches = 0;
  int32_t units = 0;
  int32_t depth = 0;
  bool dsp = false;
  ConvRequantization requantization;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const QuantizedConvArithmetic<int8_t> arithmetic(requantization);
    const int32_t units_per_step = dsp ? 2 : 3;
    for (int64_t batch = 0; batch < batches; ++batch) {
      const int64_t row = batch * depth;
      int32_t unit = 0;
      // Full steps of `units_per_step` units, then the leftover units one by one.
      for (; unit + units_per_step <= units; unit += units_per_step) {
        step(io, mem, arithmetic, row, batch, unit, units_per_step);
      }
      for (; unit < units; ++unit) step(io, mem, arithmetic, row, batch, unit, 1);
    }
  }

  // `count` units from `first` against input row `row`: every input element
  // loaded once (in 4-byte groups on the DSP path), then the outputs stored.
  template <class Memory>
  void step(const KernelIO& io, Memory& mem, const QuantizedConvArithmetic<int8_t>& arithmetic, int64_t row,
            int64_t batch, int32_t first, int32_t count) const {
    const TensorRef& input = io.input(0);
    const TensorRef& weights = io.input(1);
    std::array<int32_t, 3> acc{};
    auto accumulate = [&](int32_t col, int8_t value) {
      for (int32_t k = 0; k < count; ++k) {
        const auto weight = mem.template load<int8_t>(weights, int64_t{first + k} * depth + col);
        acc[static_cast<size_t>(k)] = arithmetic.multiply_add(acc[static_cast<size_t>(k)], value, weight);
      }
    };
    int32_t col = 0;
    if (dsp) {
      for (; col + 4 <= depth; col += 4) {
        std::array<int8_t, 4> word{};
        for (int32_t b = 0; b < 4; ++b) word[static_cast<size_t>(b)] = mem.template load<int8_t>(input, row + col + b);
        for (int32_t b = 0; b < 4; ++b) accumulate(col + b, word[static_cast<size_t>(b)]);
      }
    }
    for (; col < depth; ++col) accumulate(col, mem.template load<int8_t>(input, row + col));
    for (int32_t k = 0; k < count; ++k) {
      const int32_t unit = first + k;
      const int32_t bias = io.has_input(2) ? mem.template load<int32_t>(io.input(2), unit) : 0;
      mem.template store<int8_t>(io.output(0), batch * units + unit,
                                 arithmetic.finish(acc[static_cast<size_t>(k)], bias, unit));
    }
  }
};

}  // namespace

std::optional<PreparedKernel> prepare_cmsis_nn_fully_connected(const OpContext& ctx) {
  // The reference prepare makes TFLM's checks; its kernel is not used.
  prepare_fully_connected(ctx);
  if (ctx.input(0).type() != DataType::kInt8) return std::nullopt;
  const auto& params = std::get<FullyConnectedParams>(ctx.op->params);
  CmsisFullyConnectedS8 k;
  k.units = ctx.input(1).dim(0);
  k.depth = ctx.input(1).dim(1);
  k.batches = ctx.input(0).elements() / k.depth;
  k.dsp = ctx.family == KernelFamily::kCmsisNnDsp;
  const bool per_channel = ctx.input(1).tensor->quantization.per_channel();
  k.requantization = per_channel
                         ? per_channel_requantization(ctx, params.activation, k.units, /*quantized_dimension=*/0)
                         : per_tensor_requantization(ctx, params.activation, k.units);
  const char* function = per_channel ? "arm_fully_connected_per_channel_s8" : "arm_fully_connected_s8";
  PreparedKernel prepared = PreparedKernel::of(std::move(k));
  prepared.implementation = std::string(function) + (ctx.family == KernelFamily::kCmsisNnDsp ? " (DSP)" : " (portable C)");
  return prepared;
}

}  // namespace dmo

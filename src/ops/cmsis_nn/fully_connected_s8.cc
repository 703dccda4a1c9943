// FULLY_CONNECTED in the cmsis-nn families, mirroring TFLM's
// kernels/cmsis_nn/fully_connected.cc (Prepare and EvalQuantizedInt8, the
// version with INT4 and INT16 paths): an INT8 op whose output has more
// than 2 dimensions and whose depth is a multiple of 4 goes to
// arm_convolve_1x1_s8_fast (every unit with the per-tensor multiplier),
// any other INT8 op to arm_fully_connected_s8, or with per-channel weights
// to arm_fully_connected_per_channel_s8. INT16 goes to
// arm_fully_connected_s16 (fully_connected_s16.cc); FLOAT32 runs TFLM's
// reference kernel.
// CMSIS-NN (ARM-software/CMSIS-NN) files read:
// Source/FullyConnectedFunctions/arm_fully_connected_s8.c at c7b7a74c,
// Source/NNSupportFunctions/arm_nn_vec_mat_mult_t_s8.c and
// arm_nn_vec_mat_mult_t_per_ch_s8.c at 058a6a11 (the same loops),
// Source/ConvolutionFunctions/arm_convolve_1x1_s8_fast.c at 46fee474,
// Source/NNSupportFunctions/arm_nn_mat_mult_nt_t_s8.c at 7676d05a.
//  - arm_fully_connected_s8, one arm_nn_vec_mat_mult_t_s8 per batch row:
//    portable C three weight rows (units) per step, each step reading the
//    input row once for all three sums, then storing the three outputs;
//    the units % 3 left over one at a time. DSP: two units per step, the
//    input row read 4 bytes at a time (arm_nn_read_s8x4_ia) with its
//    depth % 4 tail byte by byte, then the two outputs stored; an odd last
//    unit alone.
//  - arm_convolve_1x1_s8_fast, arm_nn_mat_mult_nt_t_s8 with the batches as
//    lhs rows: for each pair of units, every pair of batch rows read
//    together (column by column, row b then row b + 1; on the DSP path a
//    word of row b then a word of row b + 1, the depth % 4 tail byte by
//    byte), then the 2x2 outputs stored; an odd last batch row alone; an
//    odd last unit afterwards over every batch row. The whole input is
//    read again for every pair of units.
// Scratch: arm_fully_connected_s8_get_buffer_size is 0 without MVE
// (arm_fully_connected_get_buffer_sizes_s8.c at 6ebba504), so is
// arm_convolve_1x1_s8_fast_get_buffer_size; but with per-tensor weights
// the 1x1 path asks for an int32 multiplier and shift per unit
// (buffer_conv_1x1_idx), which Eval fills to fake per-channel
// quantization. That path passes no filter offset: the weights' zero
// point plays no part there.
// Values are TFLM's reference values (the bias and the input offset's
// contribution summed with the products in 32 bits, then
// MultiplyByQuantizedMultiplier, output offset, clamp): only the order of
// accesses differs.
#include <array>
#include <string>
#include <variant>

#include "dmo/ops/eval/conv_arithmetic.h"
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

// arm_convolve_1x1_s8_fast's arm_nn_mat_mult_nt_t_s8 over [batches, depth] x [units, depth].
struct CmsisFullyConnectedAs1x1Conv {
  int64_t batches = 0;
  int32_t units = 0;
  int32_t depth = 0;
  bool dsp = false;
  ConvRequantization requantization;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const QuantizedConvArithmetic<int8_t> arithmetic(requantization);
    int32_t unit = 0;
    for (; unit + 2 <= units; unit += 2) {
      int64_t batch = 0;
      for (; batch + 2 <= batches; batch += 2) block(io, mem, arithmetic, batch, 2, unit, 2);
      if (batch < batches) block(io, mem, arithmetic, batch, 1, unit, 2);
    }
    if (unit < units) {
      for (int64_t batch = 0; batch < batches; ++batch) block(io, mem, arithmetic, batch, 1, unit, 1);
    }
  }

  // `rows` batch rows from `batch` against `count` units from `unit`: the
  // rows' columns read together (words of 4 on the DSP path, but never for
  // the lone last unit, which reads byte by byte), then the outputs stored
  // row by row.
  template <class Memory>
  void block(const KernelIO& io, Memory& mem, const QuantizedConvArithmetic<int8_t>& arithmetic, int64_t batch,
             int32_t rows, int32_t unit, int32_t count) const {
    const TensorRef& input = io.input(0);
    const TensorRef& weights = io.input(1);
    std::array<std::array<int32_t, 2>, 2> acc{};
    auto accumulate = [&](int32_t r, int32_t col, int8_t value) {
      for (int32_t k = 0; k < count; ++k) {
        const auto weight = mem.template load<int8_t>(weights, int64_t{unit + k} * depth + col);
        acc[static_cast<size_t>(r)][static_cast<size_t>(k)] =
            arithmetic.multiply_add(acc[static_cast<size_t>(r)][static_cast<size_t>(k)], value, weight);
      }
    };
    const int64_t first_row = batch * depth;
    int32_t col = 0;
    if (dsp && count == 2) {
      for (; col + 4 <= depth; col += 4) {
        for (int32_t r = 0; r < rows; ++r) {
          std::array<int8_t, 4> word{};
          for (int32_t b = 0; b < 4; ++b) {
            word[static_cast<size_t>(b)] = mem.template load<int8_t>(input, first_row + int64_t{r} * depth + col + b);
          }
          for (int32_t b = 0; b < 4; ++b) accumulate(r, col + b, word[static_cast<size_t>(b)]);
        }
      }
    }
    for (; col < depth; ++col) {
      for (int32_t r = 0; r < rows; ++r) accumulate(r, col, mem.template load<int8_t>(input, first_row + int64_t{r} * depth + col));
    }
    for (int32_t r = 0; r < rows; ++r) {
      for (int32_t k = 0; k < count; ++k) {
        const int32_t u = unit + k;
        const int32_t bias = io.has_input(2) ? mem.template load<int32_t>(io.input(2), u) : 0;
        mem.template store<int8_t>(io.output(0), (batch + r) * units + u,
                                   arithmetic.finish(acc[static_cast<size_t>(r)][static_cast<size_t>(k)], bias, u));
      }
    }
  }
};

}  // namespace

std::optional<PreparedKernel> prepare_cmsis_nn_fully_connected(const OpContext& ctx) {
  // The reference prepare makes TFLM's checks; its kernel is not used.
  prepare_fully_connected(ctx);
  if (ctx.input(0).type() == DataType::kInt16) return prepare_cmsis_nn_fully_connected_s16(ctx);
  if (ctx.input(0).type() != DataType::kInt8) return std::nullopt;
  const auto& params = std::get<FullyConnectedParams>(ctx.op->params);
  const int32_t units = ctx.input(1).dim(0);
  const int32_t depth = ctx.input(1).dim(1);
  const int64_t batches = ctx.input(0).elements() / depth;
  const bool dsp = ctx.family == KernelFamily::kCmsisNnDsp;
  const bool per_channel = ctx.input(1).tensor->quantization.per_channel();
  ConvRequantization requantization =
      per_channel ? per_channel_requantization(ctx, params.activation, units, /*quantized_dimension=*/0)
                  : per_tensor_requantization(ctx, params.activation, units);
  const char* path = dsp ? " (DSP)" : " (portable C)";
  if (ctx.output(0).rank() > 2 && depth % 4 == 0) {
    requantization.filter_offset = 0;  // cmsis_nn_conv_params has none
    PreparedKernel prepared =
        PreparedKernel::of(CmsisFullyConnectedAs1x1Conv{batches, units, depth, dsp, std::move(requantization)});
    prepared.implementation = std::string("arm_convolve_1x1_s8_fast") + path;
    if (!per_channel) {
      prepared.scratch = {{int64_t{units} * 8, "int32 multiplier and shift per unit (fully_connected.cc Prepare, "
                                               "buffer_conv_1x1_idx)"}};
    }
    return prepared;
  }
  PreparedKernel prepared = PreparedKernel::of(CmsisFullyConnectedS8{batches, units, depth, dsp, std::move(requantization)});
  prepared.implementation =
      std::string(per_channel ? "arm_fully_connected_per_channel_s8" : "arm_fully_connected_s8") + path;
  return prepared;
}

}  // namespace dmo

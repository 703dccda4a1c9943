// UNIDIRECTIONAL_SEQUENCE_LSTM in the cmsis-nn families, mirroring TFLM's
// kernels/cmsis_nn/unidirectional_sequence_lstm.cc
// (UnidirectionalSequenceLstmPrepare, CMSIS_NN_PortOpData,
// CMSIS_NN_EvalInteger8x8_16Lstm, CMSIS_NN_EvalInteger16x8_16Lstm) over
// CMSIS-NN's arm_lstm_unidirectional_s8 -> arm_nn_lstm_step_s8 ->
// arm_nn_lstm_calculate_gate_s8_s16 (arm_nn_vec_mat_mul_result_acc_s8_s16,
// arm_nn_activation_s16), arm_elementwise_mul_s16, arm_elementwise_mul_acc_s16
// and arm_elementwise_mul_s16_s8, as read at CMSIS-NN commit
// fe184997a6ecabe462c75fcb6a57d56d0e43c2c8: the version whose
// cmsis_nn_lstm_context (temp1, temp2, cell_state) is the one the glue
// fills; and for int16 activations ("16x8->16") arm_lstm_unidirectional_s16
// -> arm_nn_lstm_step_s16 -> arm_nn_lstm_calculate_gate_s16
// (arm_nn_vec_mat_mul_result_acc_s16: int64 sums, 1 row per pass portable,
// 2 with DSP, requantized as arm_nn_requantize_s64) and
// arm_elementwise_mul_s16_batch_offset, read at commits
// 88f1982a69c00ed13dd633a63da1009c48abbb4d (step) and
// 5072f1dab5c1d6ead6cb749d23d24fad2bef89e0 (gate), the same step structure.
// The glue runs float through TFLM's reference EvalLstm (std::nullopt here).
//
// CMSIS-NN's LSTM is stateless: it zeroes its cell state (the glue's third
// scratch buffer, not the cell state tensor), takes no recurrent term in the
// first time step, reads each later step's hidden state from the previous
// step's output rows, and never touches the hidden and cell state tensors.
// For one inference from TFLM's reset state (hidden state at its zero point,
// cell state 0) that gives the reference's values, except where the
// arithmetic below differs. Per time step (all batches at once):
//  1. forget gate -> temp1; cell state = forget x cell state, in place,
//  2. input gate -> temp1, cell gate -> temp2,
//  3. cell state += input x cell gate, clamped to the cell clip,
//  4. output gate -> temp1; temp2 = tanh(cell state),
//  5. the step's output rows = output gate x temp2, requantized to int8.
// Each gate zeroes its buffer, accumulates the input rows' product (then the
// previous output rows') into it, 3 gate rows per pass over an input row in
// the portable path, 2 in the DSP path (4-byte reads), then activates it.
// Arithmetic that differs from TFLM's reference kernel, computed here as
// CMSIS-NN computes it: the recurrent product is added to the input product
// before one saturation to int16 (the reference saturates each, then adds),
// and input gate x cell gate is added to the cell state before clamping
// (the reference saturates the product to int16 first). Weight zero points
// are not used (TFLM's int8 weights are symmetric).
// arm_lstm_unidirectional_s8 at this commit addresses batch-major inputs of
// several batches beyond their rows (its step offset counts all batches), so
// those are refused; CMSIS-NN's later versions add a hidden_state the glue
// does not set. The int16 path is taken to address them the same way. Its
// DSP sums take the first 512 columns in 32 bits before widening.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string_view>
#include <type_traits>
#include <vector>

#include "../lstm/int16_sigmoid_tanh.h"
#include "cmsis_nn_kernels.h"
#include "requantize_s64.h"
#include "dmo/model/data_type.h"
#include "dmo/ops/fixed_point.h"
#include "dmo/ops/kernels.h"

namespace dmo {

namespace {

constexpr size_t kInput = 0, kHiddenState = 18, kCellState = 19;
// CMSIS-NN's gate order in a step; TFLM's tensor order is input, forget, cell, output.
enum CmsisGate : size_t { kInputGateIndex = 0, kForgetGateIndex = 1, kCellGateIndex = 2, kOutputGateIndex = 3 };

// int8 activations sum in int32 with int32 biases, int16 ones in int64.
template <typename Activation>
using LstmAccumulator = std::conditional_t<std::is_same_v<Activation, int8_t>, int32_t, int64_t>;

template <typename Activation>
struct CmsisLstmGate {
  std::vector<int8_t> input_weights, hidden_weights;  // [hidden, input], [hidden, hidden]
  // bias + input offset x row sum, hidden offset x row sum (arm_vector_sum_s8 / _s8_s64).
  std::vector<LstmAccumulator<Activation>> input_effective_bias, hidden_effective_bias;
  QuantizedMultiplier input_multiplier, hidden_multiplier;
  bool sigmoid = true;  // the cell gate: tanh
};

int16_t clamp_q15(int32_t v) { return static_cast<int16_t>(std::clamp<int32_t>(v, -32768, 32767)); }

template <typename Activation>
struct CmsisLstmKernel {
  using Accumulator = LstmAccumulator<Activation>;
  int64_t batch = 0, time_steps = 0, input_size = 0, hidden = 0;
  bool time_major = false, dsp = false;
  std::array<CmsisLstmGate<Activation>, 4> gates;
  QuantizedMultiplier forget_to_cell, input_to_cell, to_output;
  int32_t output_offset = 0;
  int16_t cell_clip = 0;
  Int16LutInputScaling gate_scaling = Int16LutInputScaling::of(0, 0);
  Int16LutInputScaling cell_scaling = Int16LutInputScaling::of(0, 0);
  // The glue's three scratch buffers: temp1, temp2 and the cell state.
  mutable std::vector<int16_t> temp1, temp2, cell;

  // Rows of a batch lie batch_offset rows apart (arm_nn_lstm_step_s8's batch_offset).
  int64_t batch_offset() const { return time_major ? 1 : time_steps; }

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    std::fill(cell.begin(), cell.end(), int16_t{0});
    for (int64_t t = 0; t < time_steps; ++t) {
      const int64_t input_at = t * batch * input_size;
      const int64_t output_at = t * batch * hidden;
      const int64_t hidden_at = t > 0 ? (t - 1) * batch * hidden : -1;
      step(io, mem, input_at, hidden_at, output_at);
    }
  }

  template <class Memory>
  void step(const KernelIO& io, Memory& mem, int64_t input_at, int64_t hidden_at, int64_t output_at) const {
    const auto n = static_cast<size_t>(batch * hidden);
    gate(io, mem, gates[kForgetGateIndex], input_at, hidden_at, temp1);
    for (size_t i = 0; i < n; ++i) {
      cell[i] = clamp_q15(multiply_by_quantized_multiplier(int32_t{temp1[i]} * cell[i], forget_to_cell));
    }
    gate(io, mem, gates[kInputGateIndex], input_at, hidden_at, temp1);
    gate(io, mem, gates[kCellGateIndex], input_at, hidden_at, temp2);
    const int32_t high = cell_clip > 0 ? cell_clip : 32767;
    const int32_t low = cell_clip > 0 ? -cell_clip : -32768;
    for (size_t i = 0; i < n; ++i) {
      const int32_t sum = multiply_by_quantized_multiplier(int32_t{temp1[i]} * temp2[i], input_to_cell) + cell[i];
      cell[i] = static_cast<int16_t>(std::clamp(sum, low, high));
    }
    gate(io, mem, gates[kOutputGateIndex], input_at, hidden_at, temp1);
    for (size_t i = 0; i < n; ++i) temp2[i] = int16_tanh(cell[i], cell_scaling);
    const TensorRef& output = io.output(0);
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t h = 0; h < hidden; ++h) {
        const auto k = static_cast<size_t>(b * hidden + h);
        const int32_t value = multiply_by_quantized_multiplier(int32_t{temp1[k]} * temp2[k], to_output) + output_offset;
        mem.template store<Activation>(output, output_at + b * batch_offset() * hidden + h,
                                       static_cast<Activation>(std::clamp<int32_t>(
                                           value, std::numeric_limits<Activation>::min(),
                                           std::numeric_limits<Activation>::max())));
      }
    }
  }

  // arm_nn_lstm_calculate_gate_s8_s16: `dst` zeroed, the input product, the
  // recurrent product from the previous output rows (none at the first step), the activation.
  template <class Memory>
  void gate(const KernelIO& io, Memory& mem, const CmsisLstmGate<Activation>& g, int64_t input_at, int64_t hidden_at,
            std::vector<int16_t>& dst) const {
    std::fill(dst.begin(), dst.end(), int16_t{0});
    accumulate(mem, io.input(kInput), input_at, input_size, g.input_weights, g.input_effective_bias,
               g.input_multiplier, dst);
    if (hidden_at >= 0) {
      accumulate(mem, io.output(0), hidden_at, hidden, g.hidden_weights, g.hidden_effective_bias,
                 g.hidden_multiplier, dst);
    }
    for (int16_t& v : dst) v = g.sigmoid ? int16_logistic(v, gate_scaling) : int16_tanh(v, gate_scaling);
  }

  // arm_nn_vec_mat_mul_result_acc_s8_s16 / _s16: per batch, `group` weight
  // rows per pass over the batch's row of `lhs`, each result requantized,
  // added to dst and saturated.
  template <class Memory>
  void accumulate(Memory& mem, const TensorRef& lhs, int64_t at, int64_t cols, const std::vector<int8_t>& weights,
                  const std::vector<Accumulator>& effective_bias, QuantizedMultiplier multiplier,
                  std::vector<int16_t>& dst) const {
    using Unsigned = std::make_unsigned_t<Accumulator>;
    const int64_t group = std::is_same_v<Activation, int8_t> ? (dsp ? 2 : 3) : (dsp ? 2 : 1);
    for (int64_t b = 0; b < batch; ++b) {
      const int64_t row_at = at + b * batch_offset() * cols;
      auto rows = [&](int64_t first, int64_t count) {
        std::array<Unsigned, 3> acc{};
        for (int64_t r = 0; r < count; ++r) {
          acc[static_cast<size_t>(r)] = static_cast<Unsigned>(effective_bias[static_cast<size_t>(first + r)]);
        }
        for (int64_t c = 0; c < cols; ++c) {
          const Accumulator x = mem.template load<Activation>(lhs, row_at + c);
          for (int64_t r = 0; r < count; ++r) {
            const Accumulator w = weights[static_cast<size_t>((first + r) * cols + c)];
            acc[static_cast<size_t>(r)] += static_cast<Unsigned>(x * w);
          }
        }
        for (int64_t r = 0; r < count; ++r) {
          const auto k = static_cast<size_t>(b * hidden + first + r);
          const auto sum = static_cast<Accumulator>(acc[static_cast<size_t>(r)]);
          int32_t scaled = 0;
          if constexpr (std::is_same_v<Activation, int8_t>) {
            scaled = multiply_by_quantized_multiplier(sum, multiplier);
          } else {
            scaled = cmsis_requantize_s64(sum, multiplier);
          }
          dst[k] = clamp_q15(scaled + dst[k]);
        }
      };
      int64_t row = 0;
      for (; row + group <= hidden; row += group) rows(row, group);
      for (; row < hidden; ++row) rows(row, 1);
    }
  }
};

template <typename T>
std::vector<T> constant_data(const TensorRef& ref) {
  std::vector<T> values(static_cast<size_t>(ref.elements()));
  std::memcpy(values.data(), ref.tensor->data.data(), values.size() * sizeof(T));
  return values;
}

float scale_of(const TensorRef& ref) { return ref.tensor->quantization.scale[0]; }
int32_t zero_point_of(const TensorRef& ref) {
  const auto& zp = ref.tensor->quantization.zero_point;
  return zp.empty() ? 0 : static_cast<int32_t>(zp[0]);
}

// arm_vector_sum_s8 (int32) / arm_vector_sum_s8_s64: per weight row, offset
// x (sum of the row) plus the bias.
template <typename Sum>
std::vector<Sum> effective_bias(const std::vector<int8_t>& weights, int64_t rows, int64_t cols, int32_t offset,
                                const std::vector<Sum>* bias) {
  using Unsigned = std::make_unsigned_t<Sum>;
  std::vector<Sum> sums(static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r) {
    Sum sum = 0;
    for (int64_t c = 0; c < cols; ++c) sum += weights[static_cast<size_t>(r * cols + c)];
    Unsigned value = static_cast<Unsigned>(sum) * static_cast<Unsigned>(static_cast<Sum>(offset));
    if (bias) value += static_cast<Unsigned>((*bias)[static_cast<size_t>(r)]);
    sums[static_cast<size_t>(r)] = static_cast<Sum>(value);
  }
  return sums;
}

template <typename Activation>
PreparedKernel cmsis_lstm(const OpContext& ctx) {
  using Accumulator = LstmAccumulator<Activation>;
  const std::string_view function =
      std::is_same_v<Activation, int8_t> ? "arm_lstm_unidirectional_s8" : "arm_lstm_unidirectional_s16";
  const auto& params = std::get<UnidirectionalSequenceLstmParams>(ctx.op->params);
  const TensorRef& input = ctx.input(kInput);
  const TensorRef& hidden_state = ctx.input(kHiddenState);
  CmsisLstmKernel<Activation> k;
  k.time_major = params.time_major;
  k.batch = k.time_major ? input.dim(1) : input.dim(0);
  k.time_steps = k.time_major ? input.dim(0) : input.dim(1);
  k.input_size = input.dim(2);
  k.hidden = hidden_state.dim(1);
  ctx.require(k.time_major || k.batch == 1,
              fmt::format("CMSIS-NN's {} addresses batch-major input of {} batches beyond its rows; only one "
                          "batch or time-major input is supported",
                          function, k.batch));
  for (size_t i = 1; i <= 8; ++i) {
    ctx.require(ctx.input(i).tensor->is_constant, fmt::format("input {} (weights) must be constant", i));
  }
  for (size_t i = 12; i <= 15; ++i) {
    ctx.require(ctx.input(i).tensor->is_constant, fmt::format("input {} (bias) must be constant", i));
  }
  k.dsp = ctx.family == KernelFamily::kCmsisNnDsp;
  const float gate_scale = 0.000244140625f;  // the gates before activation are Q3.12
  const int32_t input_offset = -zero_point_of(input);
  const int32_t hidden_offset = -zero_point_of(hidden_state);
  for (size_t g = 0; g < 4; ++g) {
    CmsisLstmGate<Activation>& gate = k.gates[g];
    const TensorRef& input_weights = ctx.input(1 + g);
    const TensorRef& hidden_weights = ctx.input(5 + g);
    gate.input_weights = constant_data<int8_t>(input_weights);
    gate.hidden_weights = constant_data<int8_t>(hidden_weights);
    const std::vector<Accumulator> bias = constant_data<Accumulator>(ctx.input(12 + g));
    gate.input_effective_bias =
        effective_bias<Accumulator>(gate.input_weights, k.hidden, k.input_size, input_offset, &bias);
    gate.hidden_effective_bias =
        effective_bias<Accumulator>(gate.hidden_weights, k.hidden, k.hidden, hidden_offset, nullptr);
    // As TFLM's PrepareGateParametersInteger: scales multiplied in float, divided in double.
    gate.input_multiplier = quantize_multiplier(static_cast<double>(scale_of(input) * scale_of(input_weights)) /
                                                static_cast<double>(gate_scale));
    gate.hidden_multiplier = quantize_multiplier(
        static_cast<double>(scale_of(hidden_state) * scale_of(hidden_weights)) / static_cast<double>(gate_scale));
    gate.sigmoid = g != kCellGateIndex;
  }
  const TensorRef& cell_state = ctx.input(kCellState);
  const float cell_scale = scale_of(cell_state);
  const double activated = 0.000030517578125;  // the activated gates are Q0.15
  k.forget_to_cell = quantize_multiplier(activated * static_cast<double>(cell_scale) / static_cast<double>(cell_scale));
  k.input_to_cell = quantize_multiplier(activated * activated / static_cast<double>(cell_scale));
  k.to_output = quantize_multiplier(activated * activated / static_cast<double>(scale_of(hidden_state)));
  k.output_offset = zero_point_of(hidden_state);
  // CreateLstmCellStateInfo's power of two; arm_nn_activation_s16 takes
  // power + 12 as an unsigned left shift.
  const int power = static_cast<int>(std::round(std::log(cell_scale) * (1.0f / std::log(2.0f))));
  ctx.require(power + 12 >= 0,
              fmt::format("cell state scale {} (2^{}) is below 2^-12, which CMSIS-NN's arm_nn_activation_s16 cannot "
                          "take as a left shift",
                          cell_scale, power));
  k.cell_scaling = Int16LutInputScaling::of(0, power + 12);
  k.cell_clip = params.cell_clip > 0.0f
                    ? static_cast<int16_t>(std::min(std::max(static_cast<double>(params.cell_clip) /
                                                                 static_cast<double>(cell_scale),
                                                             -32768.0),
                                                    32767.0))
                    : int16_t{0};
  const auto cells = static_cast<size_t>(k.batch * k.hidden);
  k.temp1.resize(cells);
  k.temp2.resize(cells);
  k.cell.resize(cells);
  const int64_t buffer_bytes = k.batch * k.hidden * 2;
  PreparedKernel prepared = PreparedKernel::of(std::move(k));
  prepared.implementation =
      fmt::format("{} ({})", function, ctx.family == KernelFamily::kCmsisNnDsp ? "DSP" : "portable");
  prepared.scratch = {{buffer_bytes, "int16 temp1: forget, input and output gates"},
                      {buffer_bytes, "int16 temp2: cell gate, tanh of the cell state"},
                      {buffer_bytes, "int16 cell state"}};
  return prepared;
}

}  // namespace

std::optional<PreparedKernel> prepare_cmsis_nn_unidirectional_sequence_lstm(const OpContext& ctx) {
  // The reference prepare makes TFLM's checks (and names the op in its messages).
  (void)prepare_unidirectional_sequence_lstm(ctx);
  switch (ctx.input(kInput).type()) {
    case DataType::kInt8: return cmsis_lstm<int8_t>(ctx);
    case DataType::kInt16: return cmsis_lstm<int16_t>(ctx);
    default: return std::nullopt;  // float: EvalLstm<float, ...>
  }
}

}  // namespace dmo

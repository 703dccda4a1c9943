// UNIDIRECTIONAL_SEQUENCE_LSTM, mirroring TFLM's
// unidirectional_sequence_lstm.cc: UnidirectionalSequenceLstmPrepare and
// the checks it calls (lstm_eval_common.cc, lstm_eval.cc), and Eval's
// EvalLstm -> LstmStep (lstm_eval.h) with float, int8 ("8x8->16": int8
// activations and weights, int16 cell state, int32 bias) and int16
// ("16x8->16": int64 bias) arithmetic. Only the standard LSTM: no
// peephole, projection or layer normalisation, no CIFG (TFLM's kernel
// refuses them).
//
// Inputs (lstm_shared.h): 0 input [batch, time, input] (or [time, batch,
// input] when time_major), 1-4 input-to-gate weights [state, input], 5-8
// recurrent weights [state, state], 12-15 gate biases [state] (gates in the
// order input, forget, cell, output), 18 the hidden state and 19 the cell
// state, both variable tensors that start at TFLM's reset value and are
// updated in place; output [batch, time, state] (or time-major).
//
// Time-major inputs step all batches at once; batch-major ones step one
// batch at a time through its whole sequence. Each step (LstmStep) writes
// TFLM's four scratch buffers (kernel-held here, one per buffer index):
//  1. forget gate -> buffer 0, input gate -> buffer 1, cell gate -> buffer 2:
//     each the FC of this step's input rows plus the FC of the hidden state
//     (into buffer 3), added with saturation, then sigmoid (the cell gate:
//     the fused activation, tanh);
//  2. cell state = forget * cell state, buffer 1 = input * cell gate, cell
//     state += buffer 1, then clipped when cell_clip > 0 (UpdateLstmCell);
//  3. output gate -> buffer 1; buffer 0 = tanh(cell state); hidden state =
//     buffer 0 * output gate (UpdateLstmHidden);
//  4. memcpy of the hidden state to this step's output rows.
// So output rows of step t are stored after every input row up to step t
// has been read, and never again.
#include <fmt/format.h>

#include <array>
#include <cmath>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "../elementwise.h"
#include "dmo/ops/kernels.h"
#include "lstm_arithmetic.h"

namespace dmo {
namespace {

constexpr size_t kInput = 0, kHiddenState = 18, kCellState = 19, kInputCount = 24;
constexpr size_t input_weights_of(LstmGate g) { return 1 + g; }
constexpr size_t recurrent_weights_of(LstmGate g) { return 5 + g; }
constexpr size_t bias_of(LstmGate g) { return 12 + g; }

// TFLM's names of the 24 inputs (lstm_shared.h), for messages.
constexpr std::array<const char*, kInputCount> kInputNames = {
    "input",
    "input_to_input_weights",
    "input_to_forget_weights",
    "input_to_cell_weights",
    "input_to_output_weights",
    "recurrent_to_input_weights",
    "recurrent_to_forget_weights",
    "recurrent_to_cell_weights",
    "recurrent_to_output_weights",
    "cell_to_input_weights",
    "cell_to_forget_weights",
    "cell_to_output_weights",
    "input_gate_bias",
    "forget_gate_bias",
    "cell_gate_bias",
    "output_gate_bias",
    "projection_weights",
    "projection_bias",
    "hidden state",
    "cell state",
    "input_layer_norm_coefficients",
    "forget_layer_norm_coefficients",
    "cell_layer_norm_coefficients",
    "output_layer_norm_coefficients",
};

std::string input_name(size_t i) { return fmt::format("input {} ({})", i, kInputNames[i]); }

// TFLM's LstmSizeInfo.
struct LstmSizes {
  int64_t batch = 0, time_steps = 0, input_size = 0, state_size = 0;
  bool time_major = false;
};

// Where one step's rows start, in elements (TFLM's LstmStepManager).
struct StepOffsets {
  int64_t input = 0, output = 0, state = 0;
};

template <class Arithmetic>
struct LstmKernel {
  using ActivationValue = typename Arithmetic::ActivationType;
  using Weight = typename Arithmetic::WeightType;
  using Cell = typename Arithmetic::CellType;
  using Bias = typename Arithmetic::BiasType;

  LstmSizes s;
  Arithmetic arithmetic;
  // TFLM's four scratch buffers of batch x state cell values.
  mutable std::vector<Cell> buffer0, buffer1, buffer2, buffer3;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const int64_t rows = s.time_major ? s.batch : 1;
    StepOffsets at;
    auto next_time_step = [&] {
      at.input += rows * s.input_size;
      at.output += rows * s.state_size;
    };
    if (s.time_major) {
      for (int64_t t = 0; t < s.time_steps; ++t) {
        step(io, mem, rows, at);
        next_time_step();
      }
      return;
    }
    for (int64_t b = 0; b < s.batch; ++b) {
      for (int64_t t = 0; t < s.time_steps; ++t) {
        step(io, mem, rows, at);
        next_time_step();
      }
      at.state += s.state_size;  // the next batch's hidden and cell state
    }
  }

  // LstmStep for `rows` batches.
  template <class Memory>
  void step(const KernelIO& io, Memory& mem, int64_t rows, const StepOffsets& at) const {
    const int64_t n = rows * s.state_size;
    const TensorRef& cell = io.input(kCellState);
    const TensorRef& hidden = io.input(kHiddenState);
    gate(io, mem, kForgetGate, rows, at, buffer0, /*sigmoid=*/true);
    gate(io, mem, kInputGate, rows, at, buffer1, /*sigmoid=*/true);
    gate(io, mem, kCellGate, rows, at, buffer2, /*sigmoid=*/false);

    // UpdateLstmCell: each element-wise pass over the whole state in turn.
    for (int64_t i = 0; i < n; ++i) {
      const Cell forget = buffer0[static_cast<size_t>(i)];
      const Cell old_cell = mem.template load<Cell>(cell, at.state + i);
      mem.template store<Cell>(cell, at.state + i,
                               arithmetic.template multiply<Cell>(forget, old_cell, arithmetic.forget_times_cell));
    }
    for (int64_t i = 0; i < n; ++i) {
      const auto k = static_cast<size_t>(i);
      buffer1[k] = arithmetic.template multiply<Cell>(buffer1[k], buffer2[k], arithmetic.input_times_cell_gate);
    }
    for (int64_t i = 0; i < n; ++i) {
      const Cell sum = arithmetic.add(mem.template load<Cell>(cell, at.state + i), buffer1[static_cast<size_t>(i)]);
      mem.template store<Cell>(cell, at.state + i, sum);
    }
    if (arithmetic.clips()) {
      for (int64_t i = 0; i < n; ++i) {
        mem.template store<Cell>(cell, at.state + i, arithmetic.clip(mem.template load<Cell>(cell, at.state + i)));
      }
    }

    // UpdateLstmHidden, after the output gate.
    gate(io, mem, kOutputGate, rows, at, buffer1, /*sigmoid=*/true);
    for (int64_t i = 0; i < n; ++i) {
      buffer0[static_cast<size_t>(i)] = arithmetic.cell_tanh(mem.template load<Cell>(cell, at.state + i));
    }
    for (int64_t i = 0; i < n; ++i) {
      const auto k = static_cast<size_t>(i);
      mem.template store<ActivationValue>(
          hidden, at.state + i,
          arithmetic.template multiply<ActivationValue>(buffer0[k], buffer1[k], arithmetic.cell_times_output));
    }
    // The step's output rows: a memcpy of the hidden state.
    mem.template copy<ActivationValue>(io.output(0), at.output, hidden, at.state, n);
  }

  // CalculateLstmGate: FC(input) into `out`, FC(hidden state) into buffer 3,
  // their saturating sum, then the gate's activation, in place.
  template <class Memory>
  void gate(const KernelIO& io, Memory& mem, LstmGate g, int64_t rows, const StepOffsets& at, std::vector<Cell>& out,
            bool sigmoid) const {
    fully_connected(mem, io.input(kInput), at.input, s.input_size, io.input(input_weights_of(g)),
                    &io.input(bias_of(g)), arithmetic.input_fc[g], rows, out);
    fully_connected(mem, io.input(kHiddenState), at.state, s.state_size, io.input(recurrent_weights_of(g)), nullptr,
                    arithmetic.recurrent_fc[g], rows, buffer3);
    const int64_t n = rows * s.state_size;
    for (int64_t i = 0; i < n; ++i) {
      const auto k = static_cast<size_t>(i);
      out[k] = arithmetic.add(out[k], buffer3[k]);
    }
    for (int64_t i = 0; i < n; ++i) {
      const auto k = static_cast<size_t>(i);
      out[k] = sigmoid ? arithmetic.sigmoid(out[k]) : arithmetic.gate_tanh(out[k]);
    }
  }

  // The reference FullyConnected: `rows` rows of `depth` values from
  // element `offset` of `in`, times weights [state, depth], plus the bias.
  template <class Memory>
  void fully_connected(Memory& mem, const TensorRef& in, int64_t offset, int64_t depth, const TensorRef& weights,
                       const TensorRef* bias, const typename Arithmetic::Fc& fc, int64_t rows,
                       std::vector<Cell>& out) const {
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < s.state_size; ++c) {
        typename Arithmetic::Accumulator acc{};
        for (int64_t d = 0; d < depth; ++d) {
          const ActivationValue x = mem.template load<ActivationValue>(in, offset + r * depth + d);
          const Weight w = mem.template load<Weight>(weights, c * depth + d);
          acc = arithmetic.multiply_add(acc, x, w, fc);
        }
        const Bias bias_value = bias ? mem.template load<Bias>(*bias, c) : Bias{};
        out[static_cast<size_t>(r * s.state_size + c)] = arithmetic.finish(acc, bias != nullptr, bias_value, fc);
      }
    }
  }
};

template <class Arithmetic>
PreparedKernel lstm_kernel(const LstmSizes& s, Arithmetic arithmetic) {
  LstmKernel<Arithmetic> k;
  k.s = s;
  k.arithmetic = std::move(arithmetic);
  const auto cells = static_cast<size_t>(s.batch * s.state_size);
  for (auto* buffer : {&k.buffer0, &k.buffer1, &k.buffer2, &k.buffer3}) buffer->resize(cells);
  return PreparedKernel::of(std::move(k));
}

// ValidateTensorStatus: which inputs must be there, and which (the LSTM
// variants TFLM does not run) must not.
void require_standard_lstm_operands(const OpContext& ctx) {
  ctx.require(ctx.inputs.size() == kInputCount,
              fmt::format("expected {} inputs, got {}", kInputCount, ctx.inputs.size()));
  ctx.require(ctx.outputs.size() == 1 && ctx.output(0).tensor != nullptr,
              fmt::format("expected 1 output, got {}", ctx.outputs.size()));
  for (size_t i = 0; i < kInputCount; ++i) {
    const bool required = i <= 8 || (i >= 12 && i <= 15) || i == kHiddenState || i == kCellState;
    if (required) {
      ctx.require(ctx.has_input(i), fmt::format("{} is missing", input_name(i)));
    } else {
      ctx.require(!ctx.has_input(i), fmt::format("{} is given, but TFLM's kernel runs no peephole, projection or "
                                                 "layer normalisation LSTM",
                                                 input_name(i)));
    }
  }
  for (size_t i : {kHiddenState, kCellState}) {
    ctx.require(ctx.input(i).tensor->is_variable, fmt::format("{} must be a variable tensor", input_name(i)));
  }
}

void require_type(const OpContext& ctx, size_t i, DataType type, std::string_view path) {
  const DataType actual = ctx.input(i).type();
  ctx.require(actual == type, fmt::format("{} LSTM: {} has type {}, expected {}", path, input_name(i),
                                          data_type_name(actual), data_type_name(type)));
}

// The types of one of TFLM's three paths: weights 1-8, biases 12-15, cell state.
void require_path_types(const OpContext& ctx, std::string_view path, DataType weights, DataType bias,
                        DataType cell) {
  for (size_t i = 1; i <= 8; ++i) require_type(ctx, i, weights, path);
  for (size_t i = 12; i <= 15; ++i) require_type(ctx, i, bias, path);
  require_type(ctx, kCellState, cell, path);
}

// CreateLstmSizeInfo and ValidateTensorSize.
LstmSizes lstm_sizes(const OpContext& ctx, bool time_major) {
  const TensorRef& input = ctx.input(kInput);
  const TensorRef& hidden = ctx.input(kHiddenState);
  const TensorRef& output = ctx.output(0);
  ctx.require(input.rank() == 3, fmt::format("input {} must be 3-D ({})", shape_to_string(input.shape()),
                                             time_major ? "time, batch, input" : "batch, time, input"));
  ctx.require(hidden.rank() == 2,
              fmt::format("hidden state {} must be 2-D (batch, state)", shape_to_string(hidden.shape())));
  LstmSizes s;
  s.time_major = time_major;
  s.batch = time_major ? input.dim(1) : input.dim(0);
  s.time_steps = time_major ? input.dim(0) : input.dim(1);
  s.input_size = input.dim(2);
  s.state_size = hidden.dim(1);
  auto require_matrix = [&](size_t i, int64_t rows, int64_t columns) {
    const TensorRef& t = ctx.input(i);
    ctx.require(t.rank() == 2 && t.dim(0) == rows && t.dim(1) == columns,
                fmt::format("{} is {}, expected {}x{}", input_name(i), shape_to_string(t.shape()), rows, columns));
  };
  for (size_t i = 1; i <= 4; ++i) require_matrix(i, s.state_size, s.input_size);
  for (size_t i = 5; i <= 8; ++i) require_matrix(i, s.state_size, s.state_size);
  for (size_t i = 12; i <= 15; ++i) {
    const TensorRef& bias = ctx.input(i);
    ctx.require(bias.rank() == 1 && bias.dim(0) == s.state_size,
                fmt::format("{} is {}, expected {}", input_name(i), shape_to_string(bias.shape()), s.state_size));
  }
  for (size_t i : {kHiddenState, kCellState}) {
    ctx.require(ctx.input(i).elements() == s.batch * s.state_size,
                fmt::format("{} has {} elements, expected batch x state = {}", input_name(i), ctx.input(i).elements(),
                            s.batch * s.state_size));
  }
  ctx.require(output.rank() == 3 && output.dim(0) == input.dim(0) && output.dim(1) == input.dim(1) &&
                  output.dim(2) == s.state_size,
              fmt::format("output {} does not match input {} with state size {}", shape_to_string(output.shape()),
                          shape_to_string(input.shape()), s.state_size));
  return s;
}

// A tensor's per-tensor scale and zero point, as TFLM reads them (params.scale).
AffineQuantization quantization_of(const OpContext& ctx, size_t i) {
  const TensorRef& t = ctx.input(i);
  const Quantization& q = t.tensor->quantization;
  ctx.require(!q.scale.empty() && q.scale[0] > 0.0f,
              fmt::format("{} needs a positive quantization scale", input_name(i)));
  return affine_quantization(ctx, t, input_name(i));
}

QuantizedMultiplier checked_multiplier(const OpContext& ctx, double real, int max_shift, std::string_view what) {
  ctx.require(std::isfinite(real) && real >= 0.0, fmt::format("{} scale {} is not a finite non-negative number", what,
                                                              real));
  const QuantizedMultiplier m = quantize_multiplier(real);
  ctx.require(m.shift <= max_shift, fmt::format("{} scale {} is too large", what, real));
  return m;
}

// PrepareGateParametersInteger, CreateGateParams and CreateInterGateMulParams
// for int8 (Bias int32) or int16 (Bias int64) activations.
template <typename ActivationValue, typename Bias>
PreparedKernel prepare_integer_lstm(const OpContext& ctx, const LstmSizes& s,
                                    const UnidirectionalSequenceLstmParams& params) {
  using Arithmetic = IntegerLstmArithmetic<ActivationValue, Bias>;
  Arithmetic a;
  const AffineQuantization input = quantization_of(ctx, kInput);
  const AffineQuantization hidden = quantization_of(ctx, kHiddenState);
  const AffineQuantization cell = quantization_of(ctx, kCellState);
  // The gates before activation are Q3.12; the int64 requantization takes
  // shifts below 8 only.
  const float gate_scale = 0.000244140625f;  // 2^-12
  const int max_fc_shift = sizeof(Bias) == 8 ? 7 : 31;
  for (LstmGate g : {kInputGate, kForgetGate, kCellGate, kOutputGate}) {
    for (size_t w : {input_weights_of(g), recurrent_weights_of(g)}) {
      ctx.require(ctx.input(w).tensor->quantization.scale.size() == 1,
                  fmt::format("{} must be quantized per tensor", input_name(w)));
    }
    const AffineQuantization in_weights = quantization_of(ctx, input_weights_of(g));
    const AffineQuantization rec_weights = quantization_of(ctx, recurrent_weights_of(g));
    // GetQuantizedConvolutionMultipler: the scales multiplied in float, then divided in double.
    auto& in_fc = a.input_fc[g];
    in_fc.input_offset = -input.zero_point;
    in_fc.weights_offset = -in_weights.zero_point;
    in_fc.multiplier =
        checked_multiplier(ctx, static_cast<double>(input.scale * in_weights.scale) / static_cast<double>(gate_scale),
                           max_fc_shift, input_name(input_weights_of(g)) + " effective");
    auto& rec_fc = a.recurrent_fc[g];
    rec_fc.input_offset = -hidden.zero_point;
    rec_fc.weights_offset = -rec_weights.zero_point;
    rec_fc.multiplier = checked_multiplier(
        ctx, static_cast<double>(hidden.scale * rec_weights.scale) / static_cast<double>(gate_scale), max_fc_shift,
        input_name(recurrent_weights_of(g)) + " effective");
  }
  // The activated gates are Q0.15.
  const double activated = 0.000030517578125;  // 2^-15
  a.forget_times_cell.multiplier =
      checked_multiplier(ctx, activated * static_cast<double>(cell.scale) / static_cast<double>(cell.scale), 31,
                         "forget gate x cell state");
  a.input_times_cell_gate.multiplier =
      checked_multiplier(ctx, activated * activated / static_cast<double>(cell.scale), 31, "input x cell gate");
  a.cell_times_output.multiplier =
      checked_multiplier(ctx, activated * activated / static_cast<double>(hidden.scale), 31, "hidden state");
  a.cell_times_output.output_offset = hidden.zero_point;
  a.cell_times_output.range = type_range(ctx.input(kHiddenState).type());

  // CreateLstmCellStateInfo: the cell scale's power of two as CheckedLog2
  // rounds it (not checked to be exact), and the clip in cell units.
  const float log2_of_scale = std::log(cell.scale) * (1.0f / std::log(2.0f));
  const int power = static_cast<int>(std::round(log2_of_scale));
  // reference_integer_ops::Tanh multiplies by 3 << (12 + power) or shifts
  // right by -(12 + power): both must stay within 32 bits.
  ctx.require(power >= -43 && power <= 2,
              fmt::format("cell state scale {} (2^{}) is outside what TFLM's int16 tanh takes (2^-43 to 2^2)",
                          cell.scale, power));
  const int tanh_left_shift = 15 + power - 3;
  a.cell_scaling = tanh_left_shift < 0 ? Int16LutInputScaling::of(3, -tanh_left_shift)
                                       : Int16LutInputScaling::of(0, tanh_left_shift);
  a.clipping = params.cell_clip > 0.0f;
  a.cell_clip = static_cast<int16_t>(std::min(
      std::max(static_cast<double>(params.cell_clip) / static_cast<double>(cell.scale), -32768.0), 32767.0));
  return lstm_kernel(s, std::move(a));
}

}  // namespace

PreparedKernel prepare_unidirectional_sequence_lstm(const OpContext& ctx) {
  require_standard_lstm_operands(ctx);
  const auto* params = std::get_if<UnidirectionalSequenceLstmParams>(&ctx.op->params);
  ctx.require(params != nullptr, "UnidirectionalSequenceLSTMOptions are missing");
  // TFLM's gate code knows sigmoid and tanh only; the options can name tanh.
  ctx.require(params->activation == Activation::kTanh,
              fmt::format("cell gate activation {} is not supported; supported: TANH",
                          static_cast<int>(params->activation)));
  ctx.require(params->cell_clip >= 0.0f, fmt::format("cell_clip {} must not be negative", params->cell_clip));
  const LstmSizes s = lstm_sizes(ctx, params->time_major);

  const DataType type = ctx.input(kInput).type();
  require_type(ctx, kHiddenState, type, data_type_name(type));
  ctx.require(ctx.output(0).type() == type,
              fmt::format("output type {} differs from input type {}", data_type_name(ctx.output(0).type()),
                          data_type_name(type)));
  switch (type) {
    case DataType::kFloat32: {
      require_path_types(ctx, "FLOAT32", DataType::kFloat32, DataType::kFloat32, DataType::kFloat32);
      FloatLstmArithmetic a;
      a.cell_clip = params->cell_clip;
      return lstm_kernel(s, a);
    }
    case DataType::kInt8:
      require_path_types(ctx, "INT8", DataType::kInt8, DataType::kInt32, DataType::kInt16);
      return prepare_integer_lstm<int8_t, int32_t>(ctx, s, *params);
    case DataType::kInt16:
      require_path_types(ctx, "INT16", DataType::kInt8, DataType::kInt64, DataType::kInt16);
      return prepare_integer_lstm<int16_t, int64_t>(ctx, s, *params);
    default: fail_unsupported_type(ctx, "input", type, "FLOAT32, INT8, INT16");
  }
}

}  // namespace dmo

// The values of TFLM's LSTM step (lstm_eval.cc), float and integer: its
// gate fully connected layers (reference_ops::FullyConnected and
// reference_integer_ops::FullyConnected without fused activation), the
// saturating AddElementWise, Mul (reference_ops::Mul, reference_integer_ops::
// MulElementwise), Clipping and the gate and cell activations, with the
// parameters PrepareGateParametersFloat / PrepareGateParametersInteger and
// CreateLstmCellStateInfo derive at Prepare. The kernel (lstm.cc) owns
// the loops and every memory access; these only compute values.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>

#include "dmo/ops/eval/fixed_point_math.h"
#include "dmo/ops/activation_range.h"
#include "dmo/ops/fixed_point.h"
#include "int16_sigmoid_tanh.h"

namespace dmo {

// The four gates in TFLM's tensor order (lstm_shared.h): the input-to-gate
// weights are inputs 1-4, the recurrent weights 5-8, the biases 12-15.
enum LstmGate : size_t { kInputGate = 0, kForgetGate = 1, kCellGate = 2, kOutputGate = 3 };

struct FloatLstmArithmetic {
  using ActivationType = float;
  using WeightType = float;
  using CellType = float;
  using BiasType = float;
  using Accumulator = float;
  struct Fc {};   // no fused activation: clamped to the float range only
  struct Mul {};  // likewise

  std::array<Fc, 4> input_fc{}, recurrent_fc{};
  Mul forget_times_cell{}, input_times_cell_gate{}, cell_times_output{};
  float cell_clip = 0.0f;  // CellStateInfo::cell_clip; 0 for none

  static float clamp_to_float_range(float x) {
    return std::min(std::max(x, std::numeric_limits<float>::lowest()), std::numeric_limits<float>::max());
  }

  Accumulator multiply_add(Accumulator acc, float x, float w, const Fc&) const { return acc + x * w; }
  float finish(Accumulator acc, bool has_bias, float bias, const Fc&) const {
    return clamp_to_float_range(acc + (has_bias ? bias : 0.0f));
  }
  float add(float a, float b) const { return a + b; }
  template <typename Out>
  Out multiply(float a, float b, const Mul&) const {
    return clamp_to_float_range(a * b);
  }
  bool clips() const { return cell_clip > 0.0f; }
  float clip(float v) const { return std::max(std::min(cell_clip, v), -cell_clip); }

  // reference_ops::Logistic.
  float sigmoid(float x) const {
    const float cutoff_upper = 16.619047164916992188f;
    const float cutoff_lower = -9.0f;
    if (x > cutoff_upper) return 1.0f;
    if (x < cutoff_lower) return std::exp(x);
    return 1.0f / (1.0f + std::exp(-x));
  }
  float gate_tanh(float x) const { return std::tanh(x); }
  float cell_tanh(float x) const { return std::tanh(x); }
};

// int8 activations with an int32 bias ("8x8->16") or int16 activations
// with an int64 bias ("16x8->16"); int8 weights, int16 gates and cell state.
template <typename ActivationValue, typename Bias>
struct IntegerLstmArithmetic {
  using ActivationType = ActivationValue;
  using WeightType = int8_t;
  using CellType = int16_t;
  using BiasType = Bias;
  using Accumulator = Bias;  // the FC accumulates in the bias type
  // A gate's FC: its output is the gate before activation, Q3.12 int16.
  struct Fc {
    int32_t input_offset = 0, weights_offset = 0;
    QuantizedMultiplier multiplier;
  };
  // An element-wise product of two symmetric int16 values.
  struct Mul {
    int32_t output_offset = 0;
    QuantizedMultiplier multiplier;
    QuantizedRange range{-32768, 32767};
  };

  std::array<Fc, 4> input_fc{}, recurrent_fc{};
  Mul forget_times_cell{}, input_times_cell_gate{}, cell_times_output{};
  bool clipping = false;     // cell_clip > 0
  int16_t cell_clip = 0;     // quantized to the cell state's scale
  Int16LutInputScaling gate_scaling = Int16LutInputScaling::of(0, 0);  // Q3.12 gates
  Int16LutInputScaling cell_scaling;  // the cell state's power-of-two scale

  Accumulator multiply_add(Accumulator acc, ActivationValue x, int8_t w, const Fc& fc) const {
    const int32_t product = (int32_t{w} + fc.weights_offset) * (int32_t{x} + fc.input_offset);
    if constexpr (sizeof(Accumulator) == 4) return fixed::wrapping_add(acc, product);
    else return acc + product;
  }
  int16_t finish(Accumulator acc, bool has_bias, Bias bias, const Fc& fc) const {
    int32_t scaled = 0;
    if constexpr (sizeof(Accumulator) == 4) {
      if (has_bias) acc = fixed::wrapping_add(acc, bias);
      scaled = multiply_by_quantized_multiplier(acc, fc.multiplier);
    } else {
      if (has_bias) acc += bias;
      scaled = multiply_by_quantized_multiplier_wide(acc, fc.multiplier);
    }
    return static_cast<int16_t>(std::min(std::max(scaled, int32_t{-32768}), int32_t{32767}));
  }
  int16_t add(int16_t a, int16_t b) const {
    return static_cast<int16_t>(std::min(std::max(int32_t{a} + b, int32_t{-32768}), int32_t{32767}));
  }
  template <typename Out>
  Out multiply(int16_t a, int16_t b, const Mul& mul) const {
    const int32_t value = mul.output_offset + multiply_by_quantized_multiplier(int32_t{a} * b, mul.multiplier);
    return static_cast<Out>(std::min(mul.range.max, std::max(mul.range.min, value)));
  }
  bool clips() const { return clipping; }
  int16_t clip(int16_t v) const { return std::max(std::min(cell_clip, v), static_cast<int16_t>(-cell_clip)); }

  int16_t sigmoid(int16_t x) const { return int16_logistic(x, gate_scaling); }
  int16_t gate_tanh(int16_t x) const { return int16_tanh(x, gate_scaling); }
  int16_t cell_tanh(int16_t x) const { return int16_tanh(x, cell_scaling); }
};

}  // namespace dmo

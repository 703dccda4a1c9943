// Integer SVDF's loop nest, as TFLM's EvalIntegerSvdfReference
// (svdf_common.cc) walks it, the state and time weights of type T (int8
// or int16), input and feature weights int8, bias int32, output int8:
//  1. the state shifts left by one element (the oldest time step drops out),
//  2. each filter's feature dot product, requantized to the state's scale,
//     goes into the newest time step,
//  3. each filter's state row is dotted with its time weights (into
//     `filter_sums`, TFLM's scratch_tensor_index buffer),
//  4. each unit's sum starts at its bias (or 0), adds its `rank` filters'
//     sums (`unit_sums`, TFLM's scratch_output_tensor_index buffer), and is
//     stored once, requantized to the output.
// Every input read (step 2) comes before the first output write.
// Freestanding: the host kernel and generated code run this nest.
#pragma once

#include <cstdint>
#include <limits>

#include "dmo/ops/eval/fixed_point_math.h"
#include "dmo/ops/eval/scratch_words.h"
#include "dmo/ops/fixed_point.h"

namespace dmo {

// An SVDF's sizes (units = filters / rank), the float kernel's too.
struct SvdfSizes {
  int64_t batch = 0, input_size = 0, filters = 0, memory = 0, rank = 0, units = 0;

  // Position of (batch b, filter f, time step t) in the state.
  int64_t state_index(int64_t b, int64_t f, int64_t t) const { return (b * filters + f) * memory + t; }

  template <class F>
  void each_field(F&& f) const {
    f(batch), f(input_size), f(filters), f(memory), f(rank), f(units);
  }
};

// Step 1, either type: every state element takes the value of the next one.
template <typename T, class Tensor, class Memory>
void shift_svdf_state_left(const SvdfSizes& s, const Tensor& state, Memory& mem) {
  const int64_t n = s.batch * s.filters * s.memory;
  for (int64_t i = 0; i + 1 < n; ++i) mem.template store<T>(state, i, mem.template load<T>(state, i + 1));
}

template <typename T>
struct IntegerSvdfLoops {
  SvdfSizes sizes;
  QuantizedMultiplier to_state, to_output;
  int32_t input_zero_point = 0, state_zero_point = 0, output_zero_point = 0;
  ScratchWords filter_sums;  // batch * filters
  ScratchWords unit_sums;    // batch * units

  static constexpr int32_t kInput = 0, kWeightsFeature = 1, kWeightsTime = 2, kBias = 3, kState = 4;

  template <class IO, class Memory>
  void eval(const IO& io, Memory& mem) const {
    const auto [batch, input_size, filters, memory, rank, units] = sizes;
    const auto& input = io.input(kInput);
    const auto& weights_feature = io.input(kWeightsFeature);
    const auto& weights_time = io.input(kWeightsTime);
    const auto& state = io.input(kState);
    const auto& output = io.output(0);

    shift_svdf_state_left<T>(sizes, state, mem);
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t f = 0; f < filters; ++f) {
        int64_t dot = 0;
        for (int64_t c = 0; c < input_size; ++c) {
          dot += int64_t{mem.template load<int8_t>(weights_feature, f * input_size + c)} *
                 (mem.template load<int8_t>(input, b * input_size + c) - input_zero_point);
        }
        int32_t value = multiply_by_quantized_multiplier(static_cast<int32_t>(dot), to_state);
        constexpr int32_t kLowest = std::numeric_limits<T>::min(), kHighest = std::numeric_limits<T>::max();
        value = value < kLowest ? kLowest : value > kHighest ? kHighest : value;
        // TFLite Micro adds the state zero point after saturating and
        // narrows the sum as it is, so it may wrap (tflite-micro issue
        // #2721); the golden state tensors of keyword_scrambled confirm it.
        mem.template store<T>(state, sizes.state_index(b, f, memory - 1), static_cast<T>(state_zero_point + value));
      }
    }
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t f = 0; f < filters; ++f) {
        int64_t sum = 0;
        for (int64_t t = 0; t < memory; ++t) {
          sum += int64_t{mem.template load<T>(weights_time, f * memory + t)} *
                 (mem.template load<T>(state, sizes.state_index(b, f, t)) - state_zero_point);
        }
        filter_sums.data[b * filters + f] = static_cast<int32_t>(sum);  // int32, wrapping
      }
    }
    const bool has_bias = io.has_input(kBias);
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t u = 0; u < units; ++u) {
        unit_sums.data[b * units + u] = has_bias ? mem.template load<int32_t>(io.input(kBias), u) : 0;
      }
    }
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t u = 0; u < units; ++u) {
        int32_t& sum = unit_sums.data[b * units + u];
        for (int64_t r = 0; r < rank; ++r) sum = fixed::wrapping_add(sum, filter_sums.data[b * filters + u * rank + r]);
      }
    }
    for (int64_t i = 0; i < batch * units; ++i) {
      int32_t value = multiply_by_quantized_multiplier(unit_sums.data[i], to_output) + output_zero_point;
      value = value < -128 ? -128 : value > 127 ? 127 : value;
      mem.template store<int8_t>(output, i, static_cast<int8_t>(value));
    }
  }

  template <class F>
  void each_field(F&& f) const {
    f(sizes), f(to_state), f(to_output);
    f(input_zero_point), f(state_zero_point), f(output_zero_point);
    f(filter_sums), f(unit_sums);
  }
};

}  // namespace dmo

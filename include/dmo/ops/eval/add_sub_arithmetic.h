// The arithmetic of quantized ADD and SUB as TFLite Micro's reference
// kernels compute it (add_common.cc, sub_common.cc; src/ops/
// add_sub_requantization.h prepares it): both inputs shifted left and
// rescaled to a common scale, added or subtracted, rescaled to the output
// and clamped. Freestanding: shared by the host kernels and generated code.
#pragma once

#include <algorithm>
#include <cstdint>

#include "dmo/ops/eval/value_range.h"
#include "dmo/ops/fixed_point.h"

namespace dmo {

struct AddSubRequantization {
  int32_t input1_offset = 0, input2_offset = 0;  // minus the input zero points
  int32_t output_offset = 0;                     // the output zero point
  int left_shift = 20;
  QuantizedMultiplier input1, input2, output;
  QuantizedRange range{0, 0};

  // An input value on the common scale, shifted left by left_shift bits.
  int32_t scaled_input(int32_t value, int32_t offset, QuantizedMultiplier m) const {
    return multiply_by_quantized_multiplier((offset + value) * (int32_t{1} << left_shift), m);
  }
  int32_t add(int32_t a, int32_t b) const {
    return to_output(scaled_input(a, input1_offset, input1) + scaled_input(b, input2_offset, input2));
  }
  int32_t subtract(int32_t a, int32_t b) const {
    return to_output(scaled_input(a, input1_offset, input1) - scaled_input(b, input2_offset, input2));
  }
  int32_t to_output(int32_t raw) const {
    return std::min(std::max(multiply_by_quantized_multiplier(raw, output) + output_offset, range.min), range.max);
  }
  template <class F>
  void each_field(F&& f) const {
    f(input1_offset), f(input2_offset), f(output_offset), f(left_shift), f(input1), f(input2), f(output), f(range);
  }
};

// FLOAT32 ADD on one broadcast pair of inputs, clamped to the fused
// activation's range (TFLM's reference_ops::Add).
struct FloatAdd {
  FloatRange range;
  float operator()(float a, float b) const { return std::min(std::max(a + b, range.min), range.max); }
};

// FLOAT32 SUB, the same way (reference_ops::SubWithActivation).
struct FloatSub {
  FloatRange range;
  float operator()(float a, float b) const { return std::min(std::max(a - b, range.min), range.max); }
  template <class F>
  void each_field(F&& f) const {
    f(range);
  }
};

// Quantized ADD with output type T on one broadcast pair of inputs.
template <typename T>
struct QuantizedAdd {
  AddSubRequantization q;
  T operator()(T a, T b) const { return static_cast<T>(q.add(a, b)); }
};

// Quantized SUB with output type T on one broadcast pair of inputs.
template <typename T>
struct QuantizedSub {
  AddSubRequantization q;
  T operator()(T a, T b) const { return static_cast<T>(q.subtract(a, b)); }
  template <class F>
  void each_field(F&& f) const {
    f(q);
  }
};

}  // namespace dmo

// SOFTMAX's loop nests for FLOAT32 and the quantized types, mirroring
// TFLM's reference_ops::Softmax over the last dimension, row by row, each
// row's input read in passes (src/ops/softmax/softmax.cc prepares them and
// says what each pass computes). Freestanding: shared by the host kernel
// and generated device code.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

#include "dmo/ops/eval/exp_float.h"
#include "dmo/ops/eval/fixed_point_math.h"
#include "dmo/ops/fixed_point.h"

namespace dmo {

// Integer bits of the scaled input differences (Q5.26) and of the sum of
// exponentials (Q12.19), as TFLite's quantized softmax.
constexpr int kSoftmaxScaledDiffIntegerBits = 5;
constexpr int kSoftmaxAccumulationIntegerBits = 12;

struct SoftmaxRows {
  int64_t rows = 0;
  int64_t depth = 0;

  template <class F>
  void each_field(F&& f) const {
    f(rows), f(depth);
  }
};

// TFLite's PreprocessSoftmaxScaling and CalculateInputRadius.
struct SoftmaxScaling {
  QuantizedMultiplier input_beta;  // input difference -> Q5.26
  int32_t diff_min = 0;            // differences below it contribute nothing

  template <class F>
  void each_field(F&& f) const {
    f(input_beta), f(diff_min);
  }
};

template <class IO, class Memory>
void softmax_float_loops(const SoftmaxRows& shape, float beta, const IO& io, Memory& mem) {
  const auto& in = io.input(0);
  const auto& out = io.output(0);
  for (int64_t i = 0; i < shape.rows; ++i) {
    const int64_t row = i * shape.depth;
    float max = std::numeric_limits<float>::lowest();
    for (int64_t c = 0; c < shape.depth; ++c) max = std::max(max, mem.template load<float>(in, row + c));
    float sum = 0.f;
    for (int64_t c = 0; c < shape.depth; ++c) {
      // exp_float, not std::exp: the same bits on the host and on a device.
      const float exp_c = exp_float((mem.template load<float>(in, row + c) - max) * beta);
      mem.template store<float>(out, row + c, exp_c);
      sum += exp_c;
    }
    for (int64_t c = 0; c < shape.depth; ++c) {
      mem.template store<float>(out, row + c, mem.template load<float>(out, row + c) / sum);
    }
  }
}

template <typename In, typename Out, class IO, class Memory>
void softmax_quantized_loops(const SoftmaxRows& shape, const SoftmaxScaling& s, const IO& io, Memory& mem) {
  const auto& in = io.input(0);
  const auto& out = io.output(0);
  using ScaledDiff = fixed::Q<kSoftmaxScaledDiffIntegerBits>;
  using Accumulator = fixed::Q<kSoftmaxAccumulationIntegerBits>;
  auto scaled_diff = [&s](int32_t diff) {
    // MultiplyByQuantizedMultiplierGreaterThanOne: the shift is a left shift.
    return ScaledDiff{multiply_by_quantized_multiplier(diff, s.input_beta)};
  };
  constexpr int32_t kOutMin = std::numeric_limits<Out>::min();
  constexpr int32_t kOutMax = std::numeric_limits<Out>::max();
  for (int64_t i = 0; i < shape.rows; ++i) {
    const int64_t row = i * shape.depth;
    In max_in_row = std::numeric_limits<In>::min();
    for (int64_t c = 0; c < shape.depth; ++c) max_in_row = std::max(max_in_row, mem.template load<In>(in, row + c));

    Accumulator sum_of_exps{0};
    for (int64_t c = 0; c < shape.depth; ++c) {
      const int32_t diff = static_cast<int32_t>(mem.template load<In>(in, row + c)) - max_in_row;
      if (diff >= s.diff_min) {
        sum_of_exps = sum_of_exps + fixed::rescale<kSoftmaxAccumulationIntegerBits>(fixed::exp_on_negative_values(scaled_diff(diff)));
      }
    }

    int num_bits_over_unit = 0;
    const fixed::Q<0> shifted_scale{fixed::reciprocal(sum_of_exps.raw, kSoftmaxAccumulationIntegerBits, &num_bits_over_unit)};
    // Rows whose exponentials sum to 512 or more need a shift of 32 or more,
    // which TFLite leaves undefined. The exact value of the non-negative Q31
    // product divided by 2^32 or more, rounded to nearest, is 0.
    const int exponent = num_bits_over_unit + 31 - static_cast<int>(sizeof(Out) * 8);

    for (int64_t c = 0; c < shape.depth; ++c) {
      const int32_t diff = static_cast<int32_t>(mem.template load<In>(in, row + c)) - max_in_row;
      int32_t result = kOutMin;
      if (diff >= s.diff_min) {
        const fixed::Q<0> exp_in_0 = fixed::exp_on_negative_values(scaled_diff(diff));
        const int32_t unsaturated =
            exponent >= 32 ? 0 : rounding_divide_by_pot((shifted_scale * exp_in_0).raw, std::max(exponent, 0));
        result = std::max(std::min(unsaturated + kOutMin, kOutMax), kOutMin);
      }
      mem.template store<Out>(out, row + c, static_cast<Out>(result));
    }
  }
}

// The quantized nest as one aggregate (ops/device_instance.h), for the
// types whose device path runs it so (int8 in, int16 out).
template <typename In, typename Out>
struct QuantizedSoftmaxLoops {
  SoftmaxRows shape;
  SoftmaxScaling scaling;

  template <class IO, class Memory>
  void eval(const IO& io, Memory& mem) const {
    softmax_quantized_loops<In, Out>(shape, scaling, io, mem);
  }
  template <class F>
  void each_field(F&& f) const {
    f(shape), f(scaling);
  }
};

}  // namespace dmo

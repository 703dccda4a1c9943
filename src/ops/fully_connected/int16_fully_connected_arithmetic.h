// The arithmetic of one output element of an INT16 FULLY_CONNECTED (int16
// activations, int8 weights, int64 bias), as TFLite's
// reference_integer_ops::FullyConnected<int64_t> computes it: each product
// (weight + weight offset) * input in 32 bits added to a 64-bit sum, then
// the bias, then the 64-bit MultiplyByQuantizedMultiplier, then the clamp.
// int16 activations are symmetric, so there is no input or output offset.
// Separate from the loop nests so the reference kernel and the CMSIS-NN
// mirror (arm_fully_connected_s16) compute the same element the same way.
#pragma once

#include <algorithm>
#include <cstdint>

#include "dmo/model/op_params.h"
#include "dmo/ops/activation_range.h"
#include "dmo/ops/fixed_point.h"
#include "dmo/ops/op_context.h"

namespace dmo {

struct Int16FullyConnectedArithmetic {
  using Input = int16_t;
  using Filter = int8_t;
  using Bias = int64_t;
  using Output = int16_t;
  using Accumulator = int64_t;

  int32_t filter_offset = 0;  // -weights zero point (0 for symmetric weights)
  QuantizedMultiplier multiplier;
  QuantizedRange range{-32768, 32767};

  Accumulator multiply_add(Accumulator acc, Input input, Filter filter) const {
    return acc + int64_t{(static_cast<int32_t>(filter) + filter_offset) * static_cast<int32_t>(input)};
  }

  // The requantization of a finished sum (bias included), clamped.
  Output requantize(int64_t sum) const {
    const int32_t scaled = multiply_by_quantized_multiplier_wide(sum, multiplier);
    return static_cast<Output>(std::min(std::max(scaled, range.min), range.max));
  }

  // `channel` is unused: INT16 weights are quantized per tensor in TFLM.
  Output finish(Accumulator acc, Bias bias, int32_t /*channel*/) const { return requantize(acc + bias); }
};

// The arithmetic of the INT16 op in `ctx` (input 0, weights input 1, output
// 0); fails naming what TFLM cannot run.
Int16FullyConnectedArithmetic int16_fully_connected_arithmetic(const OpContext& ctx, Activation activation);

}  // namespace dmo

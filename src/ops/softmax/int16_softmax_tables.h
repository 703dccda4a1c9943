// The arithmetic of INT16 -> INT16 SOFTMAX that TFLM's reference kernel
// (reference_ops::SoftmaxInt16) and CMSIS-NN's arm_softmax_s16 share: the
// two 513-entry tables TFLM's SoftmaxPrepare fills with LUTPopulate<int16_t>
// (tensorflow/lite/kernels/internal/common.h, LUTPopulateInt16 in float),
// exp(x) over [-10, 0] and 1 / (1 + x) over [0, 1], both to [-1, 1]; their
// interpolated lookup (LUTLookup: 9 index bits, 7 interpolation bits); and
// the input multiplier mapping differences [-65535, 0] onto [-10, 0].
#pragma once

#include <array>
#include <cstdint>

#include "dmo/ops/fixed_point.h"

namespace dmo {

using Int16Table = std::array<int16_t, 513>;

// Filled once, on first use, exactly as TFLM fills its persistent buffers.
const Int16Table& int16_softmax_exp_table();
const Int16Table& int16_softmax_one_over_one_plus_x_table();

// LUTPopulateInt16's sampling of `transform` for an int16 input quantized
// with (input_scale, input_zero_point) and an int16 output with
// (output_scale, output_zero_point), in float as TFLite computes it.
Int16Table populate_int16_table(float input_scale, int32_t input_zero_point, float output_scale,
                                int32_t output_zero_point, float (*transform)(float));

// The table's value at `value`: entry 256 + value / 128 plus the rounded
// share (value & 127) / 128 of the slope to the next entry.
inline int16_t int16_table_lookup(int16_t value, const Int16Table& table) {
  const int index = 256 + (value >> 7);
  const int offset = value & 0x7f;
  const int slope = static_cast<int16_t>(table[static_cast<size_t>(index) + 1] - table[static_cast<size_t>(index)]);
  return static_cast<int16_t>(table[static_cast<size_t>(index)] + ((slope * offset + 64) >> 7));
}

// QuantizeMultiplier(input_scale * beta / (10 / 65535)), in double.
QuantizedMultiplier int16_softmax_input_multiplier(float input_scale, float beta);

// exp(diff) in Q0.15 for a difference diff <= 0 from the row maximum:
// MultiplyByQuantizedMultiplier onto [-65535, 0], recentred by 32767 and
// saturated to int16, then the exp table.
inline int16_t int16_softmax_exp(int32_t diff, QuantizedMultiplier input_multiplier) {
  // Wraps as the 32-bit addition does on the target.
  const auto scaled = static_cast<int32_t>(
      static_cast<uint32_t>(multiply_by_quantized_multiplier(diff, input_multiplier)) + uint32_t{32767});
  const int32_t saturated = scaled < -32768 ? -32768 : (scaled > 32767 ? 32767 : scaled);
  return int16_table_lookup(static_cast<int16_t>(saturated), int16_softmax_exp_table());
}

}  // namespace dmo

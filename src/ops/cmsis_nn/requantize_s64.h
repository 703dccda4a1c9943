// CMSIS-NN's requantisation of a 64-bit sum (arm_nn_requantize_s64 with the
// REDUCE_MULTIPLIER macro), used by its int16 convolution, fully connected,
// batch matmul and LSTM: the multiplier rounded to 16 bits, the product
// shifted by 14 - shift and truncated to 32 bits, then one rounding halving.
// It differs from TFLite's 64-bit MultiplyByQuantizedMultiplier only when
// the shifted product leaves the int32 range.
#pragma once

#include <algorithm>
#include <cstdint>

#include "dmo/ops/eval/fixed_point_math.h"
#include "dmo/ops/fixed_point.h"

namespace dmo {

inline int32_t cmsis_requantize_s64(int64_t acc, QuantizedMultiplier m) {
  const int64_t reduced = m.multiplier < 0x7FFF0000 ? (int64_t{m.multiplier} + (1 << 15)) >> 16 : 0x7FFF;
  const auto product = static_cast<int64_t>(static_cast<uint64_t>(acc) * static_cast<uint64_t>(reduced));
  const auto truncated = static_cast<int32_t>(product >> std::min(14 - m.shift, 63));
  return fixed::wrapping_add(truncated, 1) >> 1;
}

}  // namespace dmo

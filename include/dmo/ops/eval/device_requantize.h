// TFLite's MultiplyByQuantizedMultiplier as dmo's device kernels compute
// it, for the multipliers int8 kernels have (positive, never INT32_MIN,
// so the doubling high multiply cannot saturate): the left shift, the
// round-half-up high half of the 64-bit product (one SMLAL on a Cortex-M;
// truncating the nudged product, as TFLite writes it, gives the same
// value), then the rounding right shift. Bit for bit the reference's
// (ops/fixed_point.h). Freestanding.
#pragma once

#include <cstdint>

#include "dmo/ops/eval/dsp_intrinsics.h"
#include "dmo/ops/fixed_point.h"

namespace dmo {

struct DeviceMultiplier {
  int32_t multiplier;
  int32_t left_shift, right_shift;

  explicit DeviceMultiplier(QuantizedMultiplier m)
      : multiplier(m.multiplier), left_shift(m.shift > 0 ? m.shift : 0), right_shift(m.shift > 0 ? 0 : -m.shift) {}

  int32_t operator()(int32_t x) const {
    const auto shifted = static_cast<int32_t>(static_cast<uint32_t>(x) << left_shift);
    const int64_t product = static_cast<int64_t>(shifted) * multiplier + (int64_t{1} << 30);
    const auto high = static_cast<int32_t>(product >> 31);
    const auto mask = static_cast<int32_t>((uint32_t{1} << right_shift) - 1u);
    const int32_t remainder = high & mask;
    const int32_t threshold = (mask >> 1) + (high < 0 ? 1 : 0);
    return (high >> right_shift) + (remainder > threshold ? 1 : 0);
  }
};

// One output channel's output stage worked out ahead (generated code
// holds a table of them in flash): its bias, multiplier, shifts and
// rounding constants, so a kernel spends no instruction on them. The
// rounding shift adds half (one less for a negative value) and shifts,
// the half added with saturation (QADD): it saturates only for a value
// within 2^(shift - 1) of INT32_MAX, whose result, more than 2^29 either
// way, clamps to the same bound as the exact one.
struct ChannelStage {
  int32_t bias;
  int32_t multiplier;
  int32_t half;
  int16_t left_shift;
  int8_t right_shift;
  int8_t negative_fix;
};

inline ChannelStage channel_stage(int32_t bias, QuantizedMultiplier m) {
  const DeviceMultiplier d(m);
  const int32_t half = d.right_shift > 0 ? int32_t{1} << (d.right_shift - 1) : 0;
  return ChannelStage{bias, d.multiplier, half, static_cast<int16_t>(d.left_shift), static_cast<int8_t>(d.right_shift),
                      static_cast<int8_t>(d.right_shift > 0 ? 1 : 0)};
}

// TFLite's int8 output stage of `acc` in one channel: + bias,
// MultiplyByQuantizedMultiplier, + output zero point, clamped to [lo, hi].
inline int32_t apply_stage(const ChannelStage& c, int32_t acc, int32_t output_offset, int32_t lo, int32_t hi) {
  const auto total = static_cast<uint32_t>(acc) + static_cast<uint32_t>(c.bias);
  const auto shifted = static_cast<int32_t>(total << c.left_shift);
  const int64_t product = static_cast<int64_t>(shifted) * c.multiplier + (int64_t{1} << 30);
  const auto high = static_cast<int32_t>(product >> 31);
  const int32_t rounded = dsp::saturating_add(high, c.half) - (c.negative_fix & (high >> 31));
  int32_t scaled = (rounded >> c.right_shift) + output_offset;
  scaled = scaled < lo ? lo : scaled;
  return scaled > hi ? hi : scaled;
}

}  // namespace dmo

// TFLite's MultiplyByQuantizedMultiplier as dmo's device kernels compute
// it, for the multipliers int8 kernels have (positive, never INT32_MIN,
// so the doubling high multiply cannot saturate): the left shift, the
// round-half-up high half of the 64-bit product (one SMLAL on a Cortex-M;
// truncating the nudged product, as TFLite writes it, gives the same
// value), then the rounding right shift. Bit for bit the reference's
// (ops/fixed_point.h). Freestanding.
#pragma once

#include <cstdint>

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

// An int8 kernel's output stage: the multiplier, + output zero point,
// clamped to the activation range.
struct OutputStage {
  DeviceMultiplier multiplier;
  int32_t output_offset, min, max;

  OutputStage(QuantizedMultiplier m, int32_t offset, int32_t lo, int32_t hi)
      : multiplier(m), output_offset(offset), min(lo), max(hi) {}

  int8_t operator()(int32_t total) const {
    int32_t scaled = multiplier(total);
    scaled = static_cast<int32_t>(static_cast<uint32_t>(scaled) + static_cast<uint32_t>(output_offset));
    scaled = scaled < min ? min : scaled;
    scaled = scaled > max ? max : scaled;
    return static_cast<int8_t>(scaled);
  }
};

}  // namespace dmo

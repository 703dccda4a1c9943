// TFLite's MultiplyByQuantizedMultiplier as dmo's device kernels compute
// it, for the multipliers int8 kernels have (positive, never INT32_MIN,
// so the doubling high multiply cannot saturate): the left shift, the
// round-half-up high half of the doubled 64-bit product (truncating the
// nudged product, as TFLite writes it, gives the same value), then the
// rounding right shift. Bit for bit the reference's (ops/fixed_point.h).
// Freestanding.
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

// How a table of output stages computes the doubling high multiply:
//  - kBounded, for a channel whose |sum + bias| stays below
//    2^(30 - left shift) (channel_stage_fits): shifting one place further
//    makes it one SMMULR, and the rounding cannot overflow;
//  - kGeneral, for any sum: the 64-bit product with its rounding bit
//    (one SMLAL), the rounding right shift in 64 bits (the high half plus
//    half the divisor may pass INT32_MAX).
//  - kFolded, the bounded form of a table whose every channel shifts
//    right by 1 to kMaxFoldedRightShift (so none shifts left): the bias
//    kept doubled, so the sum and the one-place shift are one ADD; the
//    output's zero point folded into the rounding constant (adding
//    k * 2^shift before an arithmetic shift adds k after it); the sign
//    correction of the rounding taken from the shifted sum, whose sign the
//    high word has whenever that word is not 0 (when it is, the
//    correction cannot change the result); and the high word added to
//    that constant by the multiply itself (SMMLAR).
// A table has one form (the bounded one when every channel fits).
enum class StageForm : int8_t { kBounded, kGeneral, kFolded };

// The largest right shift kFolded takes: the high word (at most 2^30 in
// magnitude), half the divisor and 128 times the divisor stay within int32.
inline constexpr int32_t kMaxFoldedRightShift = 22;

// One output channel's output stage worked out ahead (generated code
// holds a table of them in flash): its bias, multiplier, shifts and
// rounding constants, so a kernel spends no instruction on them.
struct ChannelStage {
  int32_t bias;            // kFolded: twice the bias
  int32_t multiplier;
  int32_t half;            // 2^(right_shift - 1), or 0; kFolded: plus the output offset * 2^right_shift
  int16_t left_shift;      // kBounded: the multiplier's left shift + 1; kFolded: 1
  int8_t right_shift;
  int8_t negative_mask;    // -1 when right_shift > 0: a negative value rounds from one less
};

// A conv-like op's stages, one per output channel, and their form.
struct ChannelStages {
  const ChannelStage* table;
  StageForm form;
};

// `output_offset` counts only for kFolded.
inline ChannelStage channel_stage(int32_t bias, QuantizedMultiplier m, StageForm form, int32_t output_offset = 0) {
  const DeviceMultiplier d(m);
  const int32_t half = d.right_shift > 0 ? int32_t{1} << (d.right_shift - 1) : 0;
  if (form == StageForm::kFolded) {
    const auto offset_term = static_cast<int32_t>(static_cast<uint32_t>(output_offset) << d.right_shift);
    return ChannelStage{static_cast<int32_t>(static_cast<uint32_t>(bias) << 1), d.multiplier, half + offset_term, 1,
                        static_cast<int8_t>(d.right_shift), -1};
  }
  const int32_t left = d.left_shift + (form == StageForm::kBounded ? 1 : 0);
  return ChannelStage{bias, d.multiplier, half, static_cast<int16_t>(left), static_cast<int8_t>(d.right_shift),
                      static_cast<int8_t>(d.right_shift > 0 ? -1 : 0)};
}

// Whether a channel that fits the bounded form (channel_stage_fits) may
// take kFolded, which needs a right shift of 1 to kMaxFoldedRightShift.
inline bool channel_stage_folds(QuantizedMultiplier m) {
  const DeviceMultiplier d(m);
  return d.right_shift >= 1 && d.right_shift <= kMaxFoldedRightShift;
}

// Whether a channel whose sums before the bias are at most `sum_bound` in
// magnitude (for every input) may take StageForm::kBounded.
inline bool channel_stage_fits(int32_t bias, QuantizedMultiplier m, int64_t sum_bound) {
  const DeviceMultiplier d(m);
  if (d.left_shift >= 30) return false;
  const int64_t bias_magnitude = bias < 0 ? -int64_t{bias} : int64_t{bias};
  return sum_bound + bias_magnitude < (int64_t{1} << (30 - d.left_shift));
}

// A stage whose output is `value` for every sum (no multiplier; the
// rounding constant carries the value): for a channel whose outputs over
// all its possible sums are one value, as a channel with zero weights and
// a bias too large for the bounded form gives. kBounded and kGeneral add
// the output offset after; kFolded's sign correction (0 or -1) is halved
// away: (2 value + 1 + correction) >> 1 is value.
inline ChannelStage constant_channel_stage(int32_t value, int32_t output_offset, StageForm form) {
  if (form == StageForm::kFolded) return ChannelStage{0, 0, 2 * value + 1, 1, 1, -1};
  return ChannelStage{0, 0, value - output_offset, 1, 0, 0};
}

// `scaled` clamped to [lo, hi]; kFullRange: int8's whole range, one SSAT.
template <bool kFullRange>
inline int32_t clamp_output(int32_t scaled, int32_t lo, int32_t hi) {
  if constexpr (kFullRange) {
    return dsp::saturate_int8(scaled);
  } else {
    const int32_t low_clamped = scaled < lo ? lo : scaled;
    return low_clamped > hi ? hi : low_clamped;
  }
}

// TFLite's int8 output stage of `acc` in one channel: + bias,
// MultiplyByQuantizedMultiplier, + output zero point, clamped to [lo, hi];
// kFullRange when [lo, hi] is int8's whole range (one SSAT).
template <StageForm kForm, bool kFullRange>
inline int32_t apply_stage(const ChannelStage& c, int32_t acc, int32_t output_offset, int32_t lo, int32_t hi) {
  if constexpr (kForm == StageForm::kFolded) {
    const auto shifted = static_cast<int32_t>(static_cast<uint32_t>(c.bias) + (static_cast<uint32_t>(acc) << 1));
    const int32_t rounding = c.half + (shifted >> 31);
    return clamp_output<kFullRange>(dsp::multiply_high_rounded_add(shifted, c.multiplier, rounding) >> c.right_shift,
                                    lo, hi);
  }
  const auto shifted = static_cast<int32_t>((static_cast<uint32_t>(acc) + static_cast<uint32_t>(c.bias))
                                            << c.left_shift);
  int32_t divided;  // the high half, divided by 2^right_shift with rounding
  if constexpr (kForm == StageForm::kBounded) {
    const int32_t high = dsp::multiply_high_rounded(shifted, c.multiplier);
    divided = (high + c.half + (c.negative_mask & (high >> 31))) >> c.right_shift;
  } else {
    const int64_t product = static_cast<int64_t>(shifted) * c.multiplier + (int64_t{1} << 30);
    const auto high = static_cast<int32_t>(product >> 31);
    divided = static_cast<int32_t>((int64_t{high} + c.half + (c.negative_mask & (high >> 31))) >> c.right_shift);
  }
  return clamp_output<kFullRange>(divided + output_offset, lo, hi);
}

// Calls f.template operator()<kForm, kFullRange>() for the stages' form
// and the range [lo, hi]: a kernel's loops compiled once per kind of
// output stage, chosen once per call.
template <class F>
inline void with_output_stage(StageForm form, int32_t lo, int32_t hi, F&& f) {
  const bool full_range = lo == -128 && hi == 127;
  auto in_range = [&]<StageForm kForm>() {
    if (full_range) {
      f.template operator()<kForm, true>();
    } else {
      f.template operator()<kForm, false>();
    }
  };
  switch (form) {
    case StageForm::kFolded: return in_range.template operator()<StageForm::kFolded>();
    case StageForm::kBounded: return in_range.template operator()<StageForm::kBounded>();
    case StageForm::kGeneral: return in_range.template operator()<StageForm::kGeneral>();
  }
}

}  // namespace dmo

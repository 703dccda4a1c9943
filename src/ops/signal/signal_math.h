// The integer helpers of TFLM's signal library (signal/src: msb_32.cc,
// msb_64.cc, square_root_32.cc, square_root_64.cc, log.cc), bit for bit,
// including GCC's MostSignificantBit of 0 (32 or 64, from __builtin_clz).
#pragma once

#include <array>
#include <bit>
#include <cstdint>

namespace dmo::signal {

inline uint32_t most_significant_bit32(uint32_t x) { return x ? 32u - static_cast<uint32_t>(std::countl_zero(x)) : 32u; }
inline uint32_t most_significant_bit64(uint64_t x) { return x ? 64u - static_cast<uint32_t>(std::countl_zero(x)) : 64u; }

// Sqrt32: bit-by-bit integer square root, rounded up when the remainder
// exceeds the root (except at 0xFFFF).
inline uint16_t sqrt32(uint32_t num) {
  if (num == 0) return 0;
  uint32_t res = 0;
  const int max_bit_number = static_cast<int>(32 - most_significant_bit32(num)) | 1;
  uint32_t bit = uint32_t{1} << (31 - max_bit_number);
  for (int iterations = (31 - max_bit_number) / 2 + 1; iterations-- > 0;) {
    if (num >= res + bit) {
      num -= res + bit;
      res = (res >> 1U) + bit;
    } else {
      res >>= 1U;
    }
    bit >>= 2U;
  }
  if (num > res && res != 0xFFFF) ++res;
  return static_cast<uint16_t>(res);
}

// Sqrt64: Sqrt32 when the upper word is clear (TFLM's shortcut), else the
// same method on 64 bits; the result is returned as 32 bits.
inline uint32_t sqrt64(uint64_t num) {
  if ((num >> 32) == 0) return sqrt32(static_cast<uint32_t>(num));
  uint64_t res = 0;
  const int max_bit_number = static_cast<int>(64 - most_significant_bit64(num)) | 1;
  uint64_t bit = uint64_t{1} << (63 - max_bit_number);
  for (int iterations = (63 - max_bit_number) / 2 + 1; iterations-- > 0;) {
    if (num >= res + bit) {
      num -= res + bit;
      res = (res >> 1U) + bit;
    } else {
      res >>= 1U;
    }
    bit >>= 2U;
  }
  if (num > res && res != 0xFFFFFFFFULL) ++res;
  return static_cast<uint32_t>(res);
}

// Log32(x, out_scale): log2 by the leading bit and a 128-segment table of
// the fraction's correction, scaled to ln and then to out_scale (16
// fractional bits throughout). The table is the signal library's kLogLut.
inline constexpr std::array<uint16_t, 130> kLogCorrection = {
    0,    224,  442,  654,  861,  1063, 1259, 1450, 1636, 1817, 1992, 2163, 2329, 2490, 2646, 2797, 2944,
    3087, 3224, 3358, 3487, 3611, 3732, 3848, 3960, 4068, 4172, 4272, 4368, 4460, 4549, 4633, 4714, 4791,
    4864, 4934, 5001, 5063, 5123, 5178, 5231, 5280, 5326, 5368, 5408, 5444, 5477, 5507, 5533, 5557, 5578,
    5595, 5610, 5622, 5631, 5637, 5640, 5641, 5638, 5633, 5626, 5615, 5602, 5586, 5568, 5547, 5524, 5498,
    5470, 5439, 5406, 5370, 5332, 5291, 5249, 5203, 5156, 5106, 5054, 5000, 4944, 4885, 4825, 4762, 4697,
    4630, 4561, 4490, 4416, 4341, 4264, 4184, 4103, 4020, 3935, 3848, 3759, 3668, 3575, 3481, 3384, 3286,
    3186, 3084, 2981, 2875, 2768, 2659, 2549, 2437, 2323, 2207, 2090, 1971, 1851, 1729, 1605, 1480, 1353,
    1224, 1094, 963,  830,  695,  559,  421,  282,  142,  0,    0};

inline uint32_t log2_fraction32(uint32_t x, uint32_t log2x) {
  constexpr int kScaleLog2 = 16, kSegmentsLog2 = 7;
  auto frac = static_cast<int32_t>(static_cast<int64_t>(x) - (int64_t{1} << log2x));
  if (log2x < kScaleLog2) {
    frac = static_cast<int32_t>(static_cast<uint32_t>(frac) << (kScaleLog2 - log2x));
  } else {
    frac >>= log2x - kScaleLog2;
  }
  const auto segment = static_cast<uint32_t>(frac >> (kScaleLog2 - kSegmentsLog2));
  const int32_t c0 = kLogCorrection[segment];
  const int32_t c1 = kLogCorrection[segment + 1];
  const auto segment_base = static_cast<int32_t>((uint32_t{1} << (kScaleLog2 - kSegmentsLog2)) * segment);
  const int32_t relative = ((c1 - c0) * (frac - segment_base)) >> kScaleLog2;
  return static_cast<uint32_t>(frac + c0 + relative);
}

inline uint32_t log32(uint32_t x, uint32_t out_scale) {
  constexpr uint32_t kRound = 65536 / 2;
  constexpr uint64_t kLnOf2 = 45426;  // ln(2) with 16 fractional bits
  const uint32_t integer = most_significant_bit32(x) - 1;
  const uint32_t log2 = (integer << 16) + log2_fraction32(x, integer);
  const auto ln = static_cast<uint32_t>((kLnOf2 * log2 + kRound) >> 16);
  return (out_scale * ln + kRound) >> 16;
}

}  // namespace dmo::signal

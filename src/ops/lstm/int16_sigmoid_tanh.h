// The int16 LOGISTIC and TANH of TFLite's reference_integer_ops (logistic.h,
// tanh.h), which TFLM's integer LSTM applies to its gates and cell state:
// the input is rescaled by an integer multiplier and a rounding right
// shift, then sigmoid is read from a 256-entry table of sigmoid(i / 24) in
// unsigned 0.16 fixed point and interpolated linearly; tanh uses the same
// table through tanh(x) = 2 * sigmoid(2x) - 1. The output is Q0.15.
#pragma once

#include <array>
#include <cstdint>
#include <cstdlib>

namespace dmo {

// TFLite's sigmoid_table_uint16: sigmoid(i / 24) * 2^16. 43 of its entries
// (the last, 65535, among them) are one above the nearest integer to that,
// so the values are TFLite's own, not recomputed.
inline constexpr std::array<uint16_t, 256> kSigmoidTableUint16 = {
    32768, 33451, 34133, 34813, 35493, 36169, 36843, 37513, 38180, 38841, 39498, 40149, 40794, 41432, 42064, 42688,
    43304, 43912, 44511, 45102, 45683, 46255, 46817, 47369, 47911, 48443, 48964, 49475, 49975, 50464, 50942, 51409,
    51865, 52311, 52745, 53169, 53581, 53983, 54374, 54755, 55125, 55485, 55834, 56174, 56503, 56823, 57133, 57433,
    57724, 58007, 58280, 58544, 58800, 59048, 59288, 59519, 59743, 59959, 60168, 60370, 60565, 60753, 60935, 61110,
    61279, 61441, 61599, 61750, 61896, 62036, 62172, 62302, 62428, 62549, 62666, 62778, 62886, 62990, 63090, 63186,
    63279, 63368, 63454, 63536, 63615, 63691, 63765, 63835, 63903, 63968, 64030, 64090, 64148, 64204, 64257, 64308,
    64357, 64405, 64450, 64494, 64536, 64576, 64614, 64652, 64687, 64721, 64754, 64786, 64816, 64845, 64873, 64900,
    64926, 64950, 64974, 64997, 65019, 65039, 65060, 65079, 65097, 65115, 65132, 65149, 65164, 65179, 65194, 65208,
    65221, 65234, 65246, 65258, 65269, 65280, 65291, 65301, 65310, 65319, 65328, 65337, 65345, 65352, 65360, 65367,
    65374, 65381, 65387, 65393, 65399, 65404, 65410, 65415, 65420, 65425, 65429, 65433, 65438, 65442, 65445, 65449,
    65453, 65456, 65459, 65462, 65465, 65468, 65471, 65474, 65476, 65479, 65481, 65483, 65485, 65488, 65489, 65491,
    65493, 65495, 65497, 65498, 65500, 65501, 65503, 65504, 65505, 65507, 65508, 65509, 65510, 65511, 65512, 65513,
    65514, 65515, 65516, 65517, 65517, 65518, 65519, 65520, 65520, 65521, 65522, 65522, 65523, 65523, 65524, 65524,
    65525, 65525, 65526, 65526, 65526, 65527, 65527, 65528, 65528, 65528, 65529, 65529, 65529, 65529, 65530, 65530,
    65530, 65530, 65531, 65531, 65531, 65531, 65531, 65532, 65532, 65532, 65532, 65532, 65532, 65533, 65533, 65533,
    65533, 65533, 65533, 65533, 65533, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65535,
};

// The input rescaling: (x * multiplier + round) >> shift. TFLite's callers
// pass a zero multiplier for a power-of-two input scale, meaning
// "multiply by 3 << shift and shift by nothing" (the 3 widens the table's
// [-8, 8) reach to about [-10.7, 10.7)).
struct Int16LutInputScaling {
  int32_t multiplier = 3;
  int32_t shift = 0;
  int32_t round = 0;

  static Int16LutInputScaling of(int32_t multiplier, int32_t shift) {
    Int16LutInputScaling s;
    if (multiplier == 0) {
      s.multiplier = 3 << shift;
      s.shift = 0;
    } else {
      s.multiplier = multiplier;
      s.shift = shift;
    }
    s.round = s.shift > 0 ? int32_t{1} << (s.shift - 1) : 0;
    return s;
  }
  int32_t apply(int16_t x) const { return (int32_t{x} * multiplier + round) >> shift; }
};

// reference_integer_ops::Logistic on one int16 element.
inline int16_t int16_logistic(int16_t x, const Int16LutInputScaling& scaling) {
  const int32_t input = scaling.apply(x);
  const auto magnitude = static_cast<uint32_t>(std::abs(input));
  const uint32_t index = magnitude >> 9;  // 7 fraction bits of the rescaled input, and the table's 1/4 step
  uint32_t result = 0;
  if (index >= 255) {
    result = uint32_t{0x7FFF} << 10;
  } else {
    const uint32_t low = kSigmoidTableUint16[index];
    const uint32_t high = kSigmoidTableUint16[index + 1];
    result = (low << 9) + (magnitude & 0x1FF) * (high - low);
  }
  // sigmoid(-x) = 1 - sigmoid(x), rounded the other way.
  result = input >= 0 ? result + (1u << 9) : (1u << 25) - result + (1u << 9) - 1;
  return static_cast<int16_t>(result >> 10);
}

// reference_integer_ops::Tanh on one int16 element.
inline int16_t int16_tanh(int16_t x, const Int16LutInputScaling& scaling) {
  const int32_t input = scaling.apply(x);
  const auto magnitude = static_cast<uint32_t>(std::abs(input));
  const uint32_t index = magnitude >> 8;  // half the logistic's step: sigmoid(2x)
  int32_t result = 0;
  if (index >= 255) {
    result = 0xFFFF << 8;
  } else {
    const uint32_t low = kSigmoidTableUint16[index];
    const uint32_t high = kSigmoidTableUint16[index + 1];
    const auto fraction = static_cast<uint8_t>(magnitude & 0xFF);
    result = static_cast<int32_t>((low << 8) + fraction * (high - low));
  }
  // 2 * sigmoid - 1, rounded, with tanh(-x) = -tanh(x).
  result = input >= 0 ? result - (1 << 23) + (1 << 7) : -result + (1 << 23) + (1 << 7) - 1;
  return static_cast<int16_t>(result >> 8);
}

}  // namespace dmo

#include "dmo/ops/fixed_point.h"

namespace dmo {

QuantizedMultiplier quantize_multiplier(double real) {
  QuantizedMultiplier result;
  if (real == 0.0) return result;
  int shift = 0;
  const double mantissa = std::frexp(real, &shift);
  auto fixed = static_cast<int64_t>(std::round(mantissa * static_cast<double>(int64_t{1} << 31)));
  if (fixed == (int64_t{1} << 31)) {
    fixed /= 2;
    ++shift;
  }
  if (shift < -31) {
    shift = 0;
    fixed = 0;
  }
  result.multiplier = static_cast<int32_t>(fixed);
  result.shift = shift;
  return result;
}

}  // namespace dmo

// Clamping ranges of fused activations (ops/activation_range.h computes
// them); plain values, so freestanding eval code can hold them.
#pragma once

#include <cstdint>

namespace dmo {

struct FloatRange {
  float min, max;

  template <class F>
  void each_field(F&& f) const {
    f(min), f(max);
  }
};

struct QuantizedRange {
  int32_t min, max;

  template <class F>
  void each_field(F&& f) const {
    f(min), f(max);
  }
};

}  // namespace dmo

// MAXIMUM's and MINIMUM's arithmetic on one broadcast pair, as TFLM's
// MaximumOp and MinimumOp write it: `a > b ? a : b` and `a < b ? a : b`,
// so a NaN in a gives b and a NaN in b gives the NaN. Freestanding: shared
// by the host kernels and generated code.
#pragma once

namespace dmo {

struct Maximum {
  template <typename T>
  T operator()(T a, T b) const {
    return a > b ? a : b;
  }
  template <class F>
  void each_field(F&&) const {}
};

struct Minimum {
  template <typename T>
  T operator()(T a, T b) const {
    return a < b ? a : b;
  }
  template <class F>
  void each_field(F&&) const {}
};

}  // namespace dmo

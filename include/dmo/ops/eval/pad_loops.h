// PAD's and PADV2's loop nest, as TFLite's reference_ops::Pad (PadImpl)
// walks it: the output in row-major order, each element either the pad
// value (loaded once, before the walk) or the next input element, loaded
// right before it is stored. Up to five dimensions, as TFLM's PadPrepare
// allows. Freestanding: the host kernel and generated code run this nest.
#pragma once

#include <cstdint>

namespace dmo {

inline constexpr int32_t kMaxPadRank = 5;

// U is the element's width as an unsigned type (the pad value's bits).
template <typename U>
struct PadLoops {
  int32_t rank = 0;
  int64_t before[kMaxPadRank] = {};    // padding before, per dimension
  int64_t in_dims[kMaxPadRank] = {};
  int64_t out_dims[kMaxPadRank] = {};
  int64_t output_elements = 0;
  bool has_constant = false;  // PADV2: the pad value is input 2
  U implicit_pad = 0;         // otherwise its bits

  template <class IO, class Memory>
  void eval(const IO& io, Memory& mem) const {
    const auto& input = io.input(0);
    const auto& output = io.output(0);
    const U pad_value = has_constant ? mem.template load<U>(io.input(2), 0) : implicit_pad;
    int64_t index[kMaxPadRank] = {};  // the output element being written
    int64_t in = 0;
    for (int64_t out = 0; out < output_elements; ++out) {
      bool inside = true;
      for (int32_t d = 0; d < rank; ++d) inside = inside && index[d] >= before[d] && index[d] < before[d] + in_dims[d];
      mem.template store<U>(output, out, inside ? mem.template load<U>(input, in++) : pad_value);
      for (int32_t d = rank; d-- > 0;) {
        if (++index[d] < out_dims[d]) break;
        index[d] = 0;
      }
    }
  }

  // The members in declaration order, for generated code's initializer.
  template <class F>
  void each_field(F&& f) const {
    f(rank), f(before), f(in_dims), f(out_dims), f(output_elements), f(has_constant), f(implicit_pad);
  }
};

}  // namespace dmo

// TRANSPOSE's loop nest, as TFLite's reference_ops::Transpose
// (TransposeImpl) walks it: the output in row-major order, each element
// loaded from the input at its permuted position right before it is
// stored. Up to five dimensions, as TFLM's TransposePrepare allows.
// Freestanding: the host kernel and generated code run this nest.
#pragma once

#include <cstdint>

namespace dmo {

inline constexpr int32_t kMaxTransposeRank = 5;

// U is the element's width as an unsigned type.
template <typename U>
struct TransposeLoops {
  int32_t rank = 0;
  int64_t out_dims[kMaxTransposeRank] = {};
  int64_t in_strides[kMaxTransposeRank] = {};  // per output axis, the input stride that walks it
  int64_t elements = 0;

  template <class IO, class Memory>
  void eval(const IO& io, Memory& mem) const {
    const auto& input = io.input(0);
    const auto& output = io.output(0);
    int64_t index[kMaxTransposeRank] = {};
    int64_t in = 0;
    for (int64_t out = 0; out < elements; ++out) {
      mem.template store<U>(output, out, mem.template load<U>(input, in));
      // Next output element: the innermost axis moves fastest.
      for (int32_t d = rank - 1; d >= 0; --d) {
        if (++index[d] < out_dims[d]) {
          in += in_strides[d];
          break;
        }
        in -= (out_dims[d] - 1) * in_strides[d];
        index[d] = 0;
      }
    }
  }

  template <class F>
  void each_field(F&& f) const {
    f(rank), f(out_dims), f(in_strides), f(elements);
  }
};

}  // namespace dmo

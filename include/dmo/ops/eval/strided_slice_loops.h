// STRIDED_SLICE's and SLICE's loop nest, as TFLite's
// reference_ops::StridedSlice and reference_ops::Slice walk it: the input
// seen as 5-D, five nested loops writing the output in order. STRIDED_SLICE
// with a unit innermost stride copies each innermost run as one block
// (SequentialTensorWriter::WriteN, a memcpy); otherwise, and always for
// SLICE (SequentialTensorWriter::Write), element by element, each load
// right before its store.
// Freestanding: the host kernel and generated code run this nest.
#pragma once

#include <cstdint>

namespace dmo {

inline constexpr int32_t kStridedSliceRank = 5;

// One axis's walk: `for (i = start; stride > 0 ? i < stop : i > stop; i += stride)`.
struct SliceAxis {
  int64_t start = 0, stop = 0, stride = 1;

  bool contains(int64_t i) const { return stride > 0 ? i < stop : i > stop; }
  // The elements the walk visits.
  int64_t count() const {
    const int64_t span = stride > 0 ? stop - start : start - stop;
    const int64_t step = stride > 0 ? stride : -stride;
    return span <= 0 ? 0 : (span + step - 1) / step;
  }
  template <class F>
  void each_field(F&& f) const {
    f(start), f(stop), f(stride);
  }
};

// U is the element's width as an unsigned type.
template <typename U>
struct StridedSliceLoops {
  int64_t dims[kStridedSliceRank] = {};  // the input, padded at the front to 5-D
  SliceAxis axes[kStridedSliceRank] = {};
  bool block_runs = false;  // unit innermost stride runs copied as blocks

  template <class IO, class Memory>
  void eval(const IO& io, Memory& mem) const {
    const auto& input = io.input(0);
    const auto& output = io.output(0);
    int64_t out = 0;
    for (int64_t i0 = axes[0].start; axes[0].contains(i0); i0 += axes[0].stride) {
      for (int64_t i1 = axes[1].start; axes[1].contains(i1); i1 += axes[1].stride) {
        for (int64_t i2 = axes[2].start; axes[2].contains(i2); i2 += axes[2].stride) {
          for (int64_t i3 = axes[3].start; axes[3].contains(i3); i3 += axes[3].stride) {
            const int64_t row = (((i0 * dims[1] + i1) * dims[2] + i2) * dims[3] + i3) * dims[4];
            if (block_runs && axes[4].stride == 1) {
              const int64_t length = axes[4].stop - axes[4].start;
              if (length > 0) {
                mem.template copy<U>(output, out, input, row + axes[4].start, length);
                out += length;
              }
              continue;
            }
            for (int64_t i4 = axes[4].start; axes[4].contains(i4); i4 += axes[4].stride) {
              mem.template store<U>(output, out++, mem.template load<U>(input, row + i4));
            }
          }
        }
      }
    }
  }

  template <class F>
  void each_field(F&& f) const {
    f(dims), f(axes), f(block_runs);
  }
};

}  // namespace dmo

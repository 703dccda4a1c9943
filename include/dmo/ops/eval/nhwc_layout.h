// Where a 4-D NHWC tensor's pixels are stored, for the device kernels that
// walk it with pointers: the distance in elements between neighbouring
// batches, rows and columns, and between channels. A dense tensor's, or a
// split stage's band or a view's own strides. Freestanding.
#pragma once

#include <cstddef>
#include <cstdint>

namespace dmo {

struct NhwcLayout {
  ptrdiff_t batch = 0, row = 0, col = 0, channel = 1;

  template <class Tensor>
  static NhwcLayout of(const Tensor& t) {
    NhwcLayout l;
    if (t.strides != nullptr) {
      l.batch = static_cast<ptrdiff_t>(t.strides[0]);
      l.row = static_cast<ptrdiff_t>(t.strides[1]);
      l.col = static_cast<ptrdiff_t>(t.strides[2]);
      l.channel = static_cast<ptrdiff_t>(t.strides[3]);
      return l;
    }
    l.channel = 1;
    l.col = t.dim(3);
    l.row = l.col * t.dim(2);
    l.batch = l.row * t.dim(1);
    return l;
  }

  ptrdiff_t pixel(int32_t b, int32_t y, int32_t x) const { return b * batch + y * row + x * col; }
};

}  // namespace dmo

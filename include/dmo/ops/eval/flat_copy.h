// RESHAPE's and SQUEEZE's eval, mirroring TFLM's one memcpy of the whole
// tensor: one block copy (ops/block_copy.h) of `elements` elements of type
// U. Freestanding: shared by the host kernel and generated device code.
#pragma once

#include <cstdint>

namespace dmo {

template <typename U, class IO, class Memory>
void flat_copy(const IO& io, Memory& mem, int64_t elements) {
  // A zero-size tensor may have no data at all: an empty copy touches nothing.
  mem.template copy<U>(io.output(0), 0, io.input(0), 0, elements);
}

}  // namespace dmo

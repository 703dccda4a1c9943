// A kernel's int32 scratch (TFLM's scratch buffers of the reference
// kernels, such as MEAN's sums): the host kernel owns the words, generated
// code declares a static array of `count` words beside the arena and points
// here. Freestanding.
#pragma once

#include <cstdint>

namespace dmo {

struct ScratchWords {
  int32_t* data = nullptr;
  int64_t count = 0;
};

}  // namespace dmo

// A device kernel's activation accesses (ops/eval/device_access.h) on the
// host, forwarded to a memory policy: the address-only policy folds the
// device kernel's own order into its O_s, the checking policy checks it
// against the arena, the direct policy just runs it. The kernel walks
// storage with pointers; each access is turned back into its tensor's
// storage index. Loads from the kernel's own scratch buffer (a window
// gathered from the input) are not the input's and stay plain.
#pragma once

#include <cstdint>

#include "dmo/ops/eval/dsp_intrinsics.h"
#include "dmo/ops/kernel_io.h"

namespace dmo {

template <class Memory>
class DeviceOrderAccess {
 public:
  DeviceOrderAccess(const KernelIO& io, Memory& memory, const void* scratch = nullptr, int64_t scratch_bytes = 0)
      : io_(&io),
        memory_(&memory),
        scratch_begin_(reinterpret_cast<uintptr_t>(scratch)),
        scratch_end_(scratch_begin_ + static_cast<uintptr_t>(scratch_bytes)) {}

  int8_t load(int32_t input, const int8_t* at) const {
    if (in_scratch(at)) return *at;
    const TensorRef& t = io_->input(static_cast<size_t>(input));
    return memory_->template load_stored<int8_t>(t, stored_index(t, at));
  }
  // Byte by byte from the lowest: the order a word load's bytes arrive in
  // does not matter to O_s (all are read before anything else is written).
  uint32_t load_word(int32_t input, const int8_t* at) const {
    if (in_scratch(at)) return dsp::load_word(at);
    uint32_t word = 0;
    for (uint32_t b = 0; b < 4; ++b) word |= uint32_t{static_cast<uint8_t>(load(input, at + b))} << (8 * b);
    return word;
  }
  void store(int8_t* at, int8_t value) const {
    const TensorRef& t = io_->output(0);
    memory_->template store_stored<int8_t>(t, stored_index(t, at), value);
  }

 private:
  bool in_scratch(const int8_t* at) const {
    const auto a = reinterpret_cast<uintptr_t>(at);
    return a >= scratch_begin_ && a < scratch_end_;
  }
  // Computed on integers: a band's data pointer may lie before its buffer.
  static int64_t stored_index(const TensorRef& t, const int8_t* at) {
    return static_cast<int64_t>(reinterpret_cast<uintptr_t>(at) - reinterpret_cast<uintptr_t>(t.data));
  }

  const KernelIO* io_;
  Memory* memory_;
  uintptr_t scratch_begin_, scratch_end_;
};

}  // namespace dmo

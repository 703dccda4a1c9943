// FNV-1a, 64 bits: the hash of a run's outputs (all outputs' bytes
// concatenated) that dmo run prints, the golden files list, and generated
// device programs print, so any two runs compare by one line. Freestanding:
// generated projects compile this same header.
#pragma once

#include <cstddef>
#include <cstdint>

namespace dmo {

inline constexpr uint64_t kFnv1a64Offset = 0xcbf29ce484222325ull;

// Continues a hash `h` over `size` more bytes.
inline uint64_t fnv1a64_update(uint64_t h, const uint8_t* bytes, size_t size) {
  for (size_t i = 0; i < size; ++i) {
    h ^= bytes[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

// The 16 lowercase hex digits of `h` and a terminating zero into `out`.
inline void fnv1a64_hex(uint64_t h, char out[17]) {
  for (int i = 15; i >= 0; --i) {
    out[i] = "0123456789abcdef"[h & 0xf];
    h >>= 4;
  }
  out[16] = '\0';
}

}  // namespace dmo

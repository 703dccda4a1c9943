// The golden input pattern (runtime/input_pattern.h) one input at a time:
// an xorshift32 stream per (seed, input index), one value per element by
// type. Freestanding: generated device programs fill their inputs with this
// same header.
#pragma once

#include <cstdint>
#include <cstring>

namespace dmo {

class PatternXorShift32 {
 public:
  PatternXorShift32(uint32_t seed, uint32_t input_index) {
    state_ = 0x9E3779B9u ^ (seed * 0x85EBCA6Bu) ^ ((input_index + 1) * 0xC2B2AE35u);
    if (state_ == 0) state_ = 1;
  }
  uint32_t next() {
    state_ ^= state_ << 13;
    state_ ^= state_ >> 17;
    state_ ^= state_ << 5;
    return state_;
  }

 private:
  uint32_t state_;
};

// How an input's elements are drawn.
enum class PatternKind : uint8_t { kFloat32, kInt8, kUInt8, kInt16, kInt32, kInt64, kBool, kBytes };

// Writes input `input_index`'s pattern for `seed` to `out`: `elements`
// values of `kind` (for kBytes, `elements` bytes). Float in [-1, 1),
// int8/uint8 from the top byte, int16 from the top half, int32/int64 in
// 0..15, bool from the top bit, other types byte by byte.
inline void fill_pattern(uint8_t* out, PatternKind kind, int64_t elements, uint32_t seed, uint32_t input_index) {
  PatternXorShift32 rng(seed, input_index);
  auto put = [&out](const auto value) {
    std::memcpy(out, &value, sizeof value);
    out += sizeof value;
  };
  for (int64_t i = 0; i < elements; ++i) {
    switch (kind) {
      case PatternKind::kFloat32: {
        const double unit = static_cast<double>(rng.next() >> 8) * (1.0 / 16777216.0);
        put(static_cast<float>(unit * 2.0 - 1.0));
        break;
      }
      case PatternKind::kInt8: put(static_cast<int8_t>(rng.next() >> 24)); break;
      case PatternKind::kUInt8: put(static_cast<uint8_t>(rng.next() >> 24)); break;
      case PatternKind::kInt16: put(static_cast<int16_t>(rng.next() >> 16)); break;
      case PatternKind::kInt32: put(static_cast<int32_t>(rng.next() >> 28)); break;
      case PatternKind::kInt64: put(static_cast<int64_t>(rng.next() >> 28)); break;
      case PatternKind::kBool: put(static_cast<uint8_t>((rng.next() >> 31) != 0)); break;
      case PatternKind::kBytes: put(static_cast<uint8_t>(rng.next() >> 24)); break;
    }
  }
}

}  // namespace dmo

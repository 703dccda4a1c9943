// xorshift32: the same state gives the same numbers on every platform and in
// every build, so the zoo's weights and synthetic graphs never change.
#pragma once

#include <cstdint>

namespace dmo {

class Xorshift32 {
 public:
  explicit Xorshift32(uint32_t state) : state_(state == 0 ? 0x9e3779b9u : state) {}  // xorshift never leaves zero

  uint32_t next() {
    state_ ^= state_ << 13;
    state_ ^= state_ >> 17;
    state_ ^= state_ << 5;
    return state_;
  }

  // Uniform integer in [low, high].
  int32_t integer(int32_t low, int32_t high) {
    return low + static_cast<int32_t>(next() % static_cast<uint32_t>(high - low + 1));
  }

  // Uniform in [-limit, limit); 24 random bits keep every step exact in float.
  float uniform(float limit) {
    const float unit = static_cast<float>(next() >> 8) * (1.0f / 16777216.0f);
    return (2.0f * unit - 1.0f) * limit;
  }

 private:
  uint32_t state_;
};

}  // namespace dmo

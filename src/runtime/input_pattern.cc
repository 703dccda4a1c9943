#include "dmo/runtime/input_pattern.h"

#include <cstring>

namespace dmo {

namespace {

class XorShift32 {
 public:
  XorShift32(uint32_t seed, uint32_t input_index) {
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

template <typename T>
void append(std::vector<uint8_t>& out, T value) {
  uint8_t bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.insert(out.end(), bytes, bytes + sizeof(T));
}

}  // namespace

std::vector<uint8_t> pattern_input(const Subgraph& subgraph, uint32_t seed) {
  std::vector<uint8_t> out;
  for (size_t k = 0; k < subgraph.inputs.size(); ++k) {
    const Tensor& t = subgraph.tensors[static_cast<size_t>(subgraph.inputs[k])];
    XorShift32 rng(seed, static_cast<uint32_t>(k));
    const int64_t n = t.element_count;
    switch (t.type) {
      case DataType::kFloat32:
        for (int64_t i = 0; i < n; ++i) {
          double unit = static_cast<double>(rng.next() >> 8) * (1.0 / 16777216.0);
          append(out, static_cast<float>(unit * 2.0 - 1.0));
        }
        break;
      case DataType::kInt8:
        for (int64_t i = 0; i < n; ++i) append(out, static_cast<int8_t>(rng.next() >> 24));
        break;
      case DataType::kUInt8:
        for (int64_t i = 0; i < n; ++i) append(out, static_cast<uint8_t>(rng.next() >> 24));
        break;
      case DataType::kInt16:
        for (int64_t i = 0; i < n; ++i) append(out, static_cast<int16_t>(rng.next() >> 16));
        break;
      case DataType::kInt32:
        for (int64_t i = 0; i < n; ++i) append(out, static_cast<int32_t>(rng.next() >> 28));
        break;
      case DataType::kInt64:
        for (int64_t i = 0; i < n; ++i) append(out, static_cast<int64_t>(rng.next() >> 28));
        break;
      case DataType::kBool:
        for (int64_t i = 0; i < n; ++i) append(out, static_cast<uint8_t>((rng.next() >> 31) != 0));
        break;
      default:
        for (int64_t i = 0; i < t.byte_size; ++i) append(out, static_cast<uint8_t>(rng.next() >> 24));
        break;
    }
  }
  return out;
}

}  // namespace dmo

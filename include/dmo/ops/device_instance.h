// A device path for a kernel whose prepared state is one freestanding
// aggregate in ops/eval/ with `eval(io, memory)` and `each_field(f)`: the
// host kernel runs that aggregate, and generated code defines the same
// aggregate from its fields and calls the same eval. One nest, one state.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "dmo/ops/eval/scratch_words.h"
#include "dmo/ops/fixed_point.h"

namespace dmo {

// One value of an aggregate's initializer, the brace that opens or closes
// a nested aggregate or array, or a kernel's int32 scratch of `words`
// words (eval/scratch_words.h: generated code declares the array).
enum class DeviceBrace : int8_t { kOpen, kClose };
struct DeviceScratch {
  int64_t words = 0;
};
using DeviceValue = std::variant<int64_t, float, DeviceBrace, DeviceScratch>;

struct DeviceInstance {
  std::string type;                 // the aggregate's C++ type, "PadLoops<uint8_t>"
  std::vector<DeviceValue> values;  // its initializer, member by member
};

// Collects an aggregate's members (each_field) as initializer values.
struct DeviceFieldCollector {
  std::vector<DeviceValue>& values;

  template <class T>
  void operator()(const T& v) {
    if constexpr (std::is_floating_point_v<T>) {
      values.emplace_back(static_cast<float>(v));
    } else if constexpr (std::is_integral_v<T>) {
      values.emplace_back(static_cast<int64_t>(v));
    } else if constexpr (std::is_array_v<T>) {
      values.emplace_back(DeviceBrace::kOpen);
      for (const auto& e : v) (*this)(e);
      values.emplace_back(DeviceBrace::kClose);
    } else if constexpr (std::is_same_v<T, ScratchWords>) {
      values.emplace_back(DeviceScratch{v.count});
    } else if constexpr (std::is_same_v<T, QuantizedMultiplier>) {
      values.emplace_back(DeviceBrace::kOpen);
      (*this)(v.multiplier);
      (*this)(v.shift);
      values.emplace_back(DeviceBrace::kClose);
    } else if constexpr (requires { v.each_field(*this); }) {
      values.emplace_back(DeviceBrace::kOpen);
      v.each_field(*this);
      values.emplace_back(DeviceBrace::kClose);
    } else {  // a std::array
      values.emplace_back(DeviceBrace::kOpen);
      for (const auto& e : v) (*this)(e);
      values.emplace_back(DeviceBrace::kClose);
    }
  }
};

template <class Kernel>
DeviceInstance device_instance(std::string type, const Kernel& kernel) {
  DeviceInstance instance{std::move(type), {}};
  DeviceFieldCollector collector{instance.values};
  kernel.each_field(collector);
  return instance;
}

// The C++ name of an element type, as generated code spells it.
template <typename T>
constexpr const char* device_type_name() {
  if constexpr (std::is_same_v<T, float>) return "float";
  else if constexpr (std::is_same_v<T, int8_t>) return "int8_t";
  else if constexpr (std::is_same_v<T, uint8_t>) return "uint8_t";
  else if constexpr (std::is_same_v<T, int16_t>) return "int16_t";
  else if constexpr (std::is_same_v<T, uint16_t>) return "uint16_t";
  else if constexpr (std::is_same_v<T, int32_t>) return "int32_t";
  else if constexpr (std::is_same_v<T, uint32_t>) return "uint32_t";
  else if constexpr (std::is_same_v<T, uint64_t>) return "uint64_t";
  else if constexpr (std::is_same_v<T, int64_t>) return "int64_t";
  else if constexpr (std::is_same_v<T, bool>) return "bool";
  else static_assert(sizeof(T) == 0, "no device name for this type");
}

}  // namespace dmo

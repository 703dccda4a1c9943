// The memory policy that executes a loop nest: loads and stores touch the
// bytes. One template over the tensor type, so the host (DirectMemory, on
// TensorRef) and generated device code (DeviceMemory, on DeviceTensor)
// run the very same accesses. Freestanding: dmo codegen copies it.
// A tensor type gives `data` (uint8_t*), `strides` (nullptr when dense)
// and storage_index(i): where dense element i is stored, in elements.
#pragma once

#include <cstdint>
#include <cstring>

namespace dmo {

template <typename Tensor>
struct BasicDirectMemory {
  template <typename T>
  T load(const Tensor& t, int64_t i) {
    return load_stored<T>(t, t.storage_index(i));
  }
  template <typename T>
  void store(const Tensor& t, int64_t i, T value) {
    store_stored<T>(t, t.storage_index(i), value);
  }
  // Element `s` of the storage (s elements from `data`): for kernels that
  // walk storage with pointers (ops/eval/device_access.h).
  template <typename T>
  T load_stored(const Tensor& t, int64_t s) {
    T value;
    std::memcpy(&value, t.data + s * static_cast<int64_t>(sizeof(T)), sizeof(T));
    return value;
  }
  template <typename T>
  void store_stored(const Tensor& t, int64_t s, T value) {
    std::memcpy(t.data + s * static_cast<int64_t>(sizeof(T)), &value, sizeof(T));
  }
  // memmove for dense tensors (deterministic even where a bad plan overlaps
  // them); a view is copied element by element.
  template <typename T>
  void copy(const Tensor& to, int64_t to_index, const Tensor& from, int64_t from_index, int64_t count) {
    if (count <= 0) return;
    if (to.strides == nullptr && from.strides == nullptr) {
      const auto size = static_cast<int64_t>(sizeof(T));
      std::memmove(to.data + to_index * size, from.data + from_index * size, static_cast<size_t>(count * size));
      return;
    }
    for (int64_t i = 0; i < count; ++i) store<T>(to, to_index + i, load<T>(from, from_index + i));
  }
};

}  // namespace dmo

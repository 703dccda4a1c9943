// Direct execution of a kernel whose tensors are all dense (no view's
// strides): the same loads and stores, in the same order, as DirectMemory,
// without its per-access stride check, so the compiler sees plain arrays
// in the hot loop nests. A kernel's eval opts in with `eval_dense_direct`.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "dmo/ops/kernel_io.h"
#include "dmo/ops/memory_policy.h"

namespace dmo {

struct DenseMemory {
  // A dense tensor's element i is its storage's element i.
  template <typename T>
  T load(const TensorRef& t, int64_t i) {
    return DirectMemory{}.load_stored<T>(t, i);
  }
  template <typename T>
  void store(const TensorRef& t, int64_t i, T value) {
    DirectMemory{}.store_stored<T>(t, i, value);
  }
  template <typename T>
  void copy(const TensorRef& to, int64_t to_index, const TensorRef& from, int64_t from_index, int64_t count) {
    if (count <= 0) return;
    const auto size = static_cast<int64_t>(sizeof(T));
    std::memmove(to.data + to_index * size, from.data + from_index * size, static_cast<size_t>(count * size));
  }
};

inline bool all_dense(const KernelIO& io) {
  for (const TensorRef& t : io.inputs) {
    if (t.strides != nullptr) return false;
  }
  for (const TensorRef& t : io.outputs) {
    if (t.strides != nullptr) return false;
  }
  return true;
}

// Runs `run(memory)` with DenseMemory when `Memory` executes directly and
// every tensor is dense; otherwise with `memory` itself.
template <class Memory, class Run>
void eval_dense_direct(const KernelIO& io, Memory& memory, const Run& run) {
  if constexpr (std::is_same_v<Memory, DirectMemory>) {
    if (all_dense(io)) {
      DenseMemory dense;
      run(dense);
      return;
    }
  }
  run(memory);
}

}  // namespace dmo

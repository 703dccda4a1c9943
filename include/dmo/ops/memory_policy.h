// Memory policies: every kernel is one loop nest written once as a template
// over a policy, so the code that computes is the code that is analysed.
//  - DirectMemory executes: loads and stores touch the bytes.
//  - AddressMemory computes nothing: it folds the order of one (input,
//    output) pair's reads and writes into the algorithmic safe overlap O_s.
//  - CheckingMemory executes and keeps shadow state of the arena bytes the op
//    has written; reading an input byte the op already overwrote is a clobber.
// Kernels whose TFLM counterpart copies with memcpy or memmove use `copy`
// (ops/block_copy.h): the order of such a copy is unspecified, so it may
// only run between disjoint or identical byte ranges.
// Kernels index tensors densely; a view's strides (ops/tensor_ref.h) are
// applied here, so the address-only policy sees the dense order.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

#include "dmo/model/safe_overlap_formula.h"
#include "dmo/ops/block_copy.h"
#include "dmo/ops/tensor_ref.h"

namespace dmo {

struct DirectMemory {
  template <typename T>
  T load(const TensorRef& t, int64_t i) {
    T value;
    std::memcpy(&value, t.data + t.storage_index(i) * static_cast<int64_t>(sizeof(T)), sizeof(T));
    return value;
  }
  template <typename T>
  void store(const TensorRef& t, int64_t i, T value) {
    std::memcpy(t.data + t.storage_index(i) * static_cast<int64_t>(sizeof(T)), &value, sizeof(T));
  }
  // memmove for dense tensors (deterministic even where a bad plan overlaps
  // them); a view is copied element by element.
  template <typename T>
  void copy(const TensorRef& to, int64_t to_index, const TensorRef& from, int64_t from_index, int64_t count) {
    if (count <= 0) return;
    if (to.strides == nullptr && from.strides == nullptr) {
      const auto size = static_cast<int64_t>(sizeof(T));
      std::memmove(to.data + to_index * size, from.data + from_index * size, static_cast<size_t>(count * size));
      return;
    }
    for (int64_t i = 0; i < count; ++i) store<T>(to, to_index + i, load<T>(from, from_index + i));
  }
};

class AddressMemory {
 public:
  // `mirrored` is for kernels walking descending: byte b of a tensor of n
  // bytes is recorded as n - 1 - b, so the same formula gives how far the
  // END of the input may overlap the START of an output placed above it.
  AddressMemory(int32_t input_tensor, int32_t output_tensor, int64_t input_bytes, int64_t output_bytes,
                bool mirrored = false)
      : input_(input_tensor),
        output_(output_tensor),
        input_bytes_(input_bytes),
        output_bytes_(output_bytes),
        mirrored_(mirrored) {}

  template <typename T>
  T load(const TensorRef& t, int64_t i) {
    if (t.index == input_ && !t.is_output) {
      int64_t byte = i * static_cast<int64_t>(sizeof(T));
      if (mirrored_) byte = input_bytes_ - byte - static_cast<int64_t>(sizeof(T));  // lowest mirrored byte
      fold_.read(byte);
    }
    return T{};
  }
  template <typename T>
  void store(const TensorRef& t, int64_t i, T) {
    if (t.index != output_ || !t.is_output) return;
    int64_t last_byte = i * static_cast<int64_t>(sizeof(T)) + static_cast<int64_t>(sizeof(T)) - 1;
    if (mirrored_) last_byte = output_bytes_ - 1 - i * static_cast<int64_t>(sizeof(T));  // highest mirrored byte
    fold_.write(last_byte);
    ++writes_;
  }
  // A block copy from the input to the output has no order to fold: any
  // overlap of the two may clobber, so the op's O_s is 0 (dmo never places
  // an output exactly on its input, the one overlap such a copy survives).
  // A copy touching only one of them reads or writes as element accesses do.
  template <typename T>
  void copy(const TensorRef& to, int64_t to_index, const TensorRef& from, int64_t from_index, int64_t count) {
    if (count <= 0) return;
    const bool reads_input = from.index == input_ && !from.is_output;
    const bool writes_output = to.index == output_ && to.is_output;
    if (reads_input && writes_output) copied_input_to_output_ = true;
    for (int64_t i = 0; i < count; ++i) load<T>(from, from_index + i);
    for (int64_t i = 0; i < count; ++i) store<T>(to, to_index + i, T{});
  }

  // Largest number of bytes the end of the output may overlap the start of
  // the input (model/safe_overlap_formula.h), folded in constant memory.
  int64_t safe_overlap() const { return copied_input_to_output_ ? 0 : fold_.safe_overlap(output_bytes_); }
  int64_t writes() const { return writes_; }
  // Whether the op block-copied from the input to the output (O_s 0 then).
  bool copied_input_to_output() const { return copied_input_to_output_; }

 private:
  int32_t input_, output_;
  int64_t input_bytes_, output_bytes_;
  bool mirrored_;
  SafeOverlapFold fold_;
  int64_t writes_ = 0;
  bool copied_input_to_output_ = false;
};

struct Clobber {
  int32_t op = -1;
  int32_t tensor = -1;
  int64_t byte_offset = 0;  // within the input tensor
};

class CheckingMemory {
 public:
  explicit CheckingMemory(const uint8_t* arena_base, int64_t arena_size)
      : base_(arena_base), written_(static_cast<size_t>(arena_size), 0) {}

  // Called before each op: forget what the previous op wrote.
  void begin_op(int32_t op);

  template <typename T>
  T load(const TensorRef& t, int64_t i) {
    T value;
    const uint8_t* p = t.data + t.storage_index(i) * static_cast<int64_t>(sizeof(T));
    if (t.in_arena && !t.is_output && !clobber_) {
      size_t at = static_cast<size_t>(p - base_);
      for (size_t b = 0; b < sizeof(T); ++b) {
        if (written_[at + b] == stamp_) {
          clobber_ = Clobber{op_, t.index, i * static_cast<int64_t>(sizeof(T)) + static_cast<int64_t>(b)};
          break;
        }
      }
    }
    std::memcpy(&value, p, sizeof(T));
    return value;
  }
  template <typename T>
  void store(const TensorRef& t, int64_t i, T value) {
    uint8_t* p = t.data + t.storage_index(i) * static_cast<int64_t>(sizeof(T));
    if (t.in_arena) std::memset(&written_[static_cast<size_t>(p - base_)], stamp_, sizeof(T));
    std::memcpy(p, &value, sizeof(T));
  }

  // A block copy: loads and stores as element accesses do, and, since its
  // direction is unspecified, a clobber when its source and destination
  // overlap without being the same bytes.
  template <typename T>
  void copy(const TensorRef& to, int64_t to_index, const TensorRef& from, int64_t from_index, int64_t count) {
    if (to.in_arena && from.in_arena && !from.is_output) {
      note_overlapping_copy(BlockCopy{to, to_index, from, from_index, count, static_cast<int64_t>(sizeof(T))});
    }
    for (int64_t i = 0; i < count; ++i) store<T>(to, to_index + i, load<T>(from, from_index + i));
  }

  const std::optional<Clobber>& clobber() const { return clobber_; }

 private:
  void note_overlapping_copy(const BlockCopy& copy);

  const uint8_t* base_;
  std::vector<uint8_t> written_;  // byte == stamp_: written by the current op
  uint8_t stamp_ = 0;
  int32_t op_ = -1;
  std::optional<Clobber> clobber_;
};

}  // namespace dmo

// Memory policies: every kernel is one loop nest written once as a template
// over a policy, so the code that computes is the code that is analysed.
//  - DirectMemory executes: loads and stores touch the bytes.
//  - AddressMemory computes nothing: it folds the order of one (input,
//    output) pair's reads and writes into the algorithmic safe overlap O_s.
//  - CheckingMemory executes and keeps a shadow of the arena: which tensor's
//    value each byte holds; losing a value still needed is a clobber.
// Kernels whose TFLM counterpart copies with memcpy or memmove use `copy`
// (ops/block_copy.h): the order of such a copy is unspecified, so it may
// only run between disjoint or identical byte ranges (the address-only
// policy allows disjoint ones; the checking policy flags any other).
// Kernels index tensors densely; a view's strides (ops/tensor_ref.h) are
// applied here, so the address-only policy sees the dense order.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

#include "dmo/error.h"
#include "dmo/model/limits.h"
#include "dmo/model/safe_overlap_formula.h"
#include "dmo/ops/block_copy.h"
#include "dmo/ops/clobber_log.h"
#include "dmo/ops/eval/direct_memory.h"
#include "dmo/ops/tensor_ref.h"

namespace dmo {

using DirectMemory = BasicDirectMemory<TensorRef>;

// Thrown by AddressMemory past its access limit: the analysis of that op
// is abandoned, not the command.
class AddressBudgetExceeded : public Error {
 public:
  using Error::Error;
};

class AddressMemory {
 public:
  // Loop nests may take address-only shortcuts (ops/eval/address_only.h).
  static constexpr bool kRecordsAddressesOnly = true;
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
    count_access();
    if (t.index == input_ && !t.is_output) {
      int64_t byte = i * static_cast<int64_t>(sizeof(T));
      if (mirrored_) byte = input_bytes_ - byte - static_cast<int64_t>(sizeof(T));  // lowest mirrored byte
      fold_.read(byte);
    }
    return T{};
  }
  // Loads of elements first .. first + count - 1 with no store between
  // them: the fold keeps only the lowest byte read under the highest
  // written so far, so the run's lowest byte stands for all of it.
  template <typename T>
  void load_run(const TensorRef& t, int64_t first, int64_t count) {
    if (count > 0) load_span<T>(t, first, first + count - 1);
  }
  // Loads of some elements of first .. last, both ends among them, with no
  // store between them: as for a run, the end that lies lowest stands for
  // all of them (a window's taps: the first and the last inside the input).
  template <typename T>
  void load_span(const TensorRef& t, int64_t first, int64_t last) {
    load<T>(t, mirrored_ ? last : first);
  }
  // Stores of `count` elements, a run of a walk from `first` to `last`,
  // with no load between them: the fold keeps only the highest byte
  // written, and one end of a run holds it. Each counts as a store.
  template <typename T>
  void store_run(const TensorRef& t, int64_t first, int64_t last, int64_t count) {
    if (count <= 0) return;
    store<T>(t, first, T{});
    if (count == 1) return;
    store<T>(t, last, T{});
    if (count == 2) return;
    count_access(count - 2);
    if (t.index == output_ && t.is_output) writes_ += count - 2;
  }
  // Element `s` of the storage (ops/eval/direct_memory.h): the dense
  // element it holds. Only dense tensors are analysed so (a device kernel's
  // pair); a view's storage index does not give its dense order here, so
  // the analysis of such a pair is abandoned.
  template <typename T>
  T load_stored(const TensorRef& t, int64_t s) {
    return load<T>(t, dense_of_stored(t, s, !t.is_output && t.index == input_));
  }
  template <typename T>
  void store_stored(const TensorRef& t, int64_t s, T value) {
    store<T>(t, dense_of_stored(t, s, t.is_output && t.index == output_), value);
  }
  template <typename T>
  void store(const TensorRef& t, int64_t i, T) {
    count_access();
    if (t.index != output_ || !t.is_output) return;
    int64_t last_byte = i * static_cast<int64_t>(sizeof(T)) + static_cast<int64_t>(sizeof(T)) - 1;
    if (mirrored_) last_byte = output_bytes_ - 1 - i * static_cast<int64_t>(sizeof(T));  // highest mirrored byte
    fold_.write(last_byte);
    ++writes_;
  }
  // A block copy (memcpy): C leaves the order of its bytes unspecified,
  // and the worst order writes every destination byte before reading any
  // source byte. Folded as exactly that, all its stores then all its loads,
  // the copy allows an overlap only where its destination lies wholly below
  // its source (disjoint ranges); a copy touching only one of the pair
  // reads or writes as element accesses do. A copy of one byte can only
  // read it before writing it.
  template <typename T>
  void copy(const TensorRef& to, int64_t to_index, const TensorRef& from, int64_t from_index, int64_t count) {
    if (count > 0 && from.index == input_ && !from.is_output && to.index == output_ && to.is_output) {
      copied_input_to_output_ = true;
    }
    if (count == 1 && sizeof(T) == 1) {
      store<T>(to, to_index, load<T>(from, from_index));
      return;
    }
    for (int64_t i = 0; i < count; ++i) store<T>(to, to_index + i, T{});
    for (int64_t i = 0; i < count; ++i) load<T>(from, from_index + i);
  }

  // Largest number of bytes the end of the output may overlap the start of
  // the input (model/safe_overlap_formula.h), folded in constant memory.
  int64_t safe_overlap() const { return fold_.safe_overlap(output_bytes_); }
  int64_t writes() const { return writes_; }
  // Loads and stores the kernel made (a run or a span counts once).
  int64_t accesses() const { return accesses_; }
  // Past this many accesses the analysis stops with AddressBudgetExceeded
  // (default kMaxAddressOnlyAccesses, model/limits.h).
  void set_max_accesses(int64_t accesses) { max_accesses_ = accesses; }
  // Whether the op block-copied from the input to the output: a real
  // memcpy reads before it writes, so a trace of it may exceed O_s.
  bool copied_input_to_output() const { return copied_input_to_output_; }

 private:
  int32_t input_, output_;
  int64_t input_bytes_, output_bytes_;
  bool mirrored_;
  SafeOverlapFold fold_;
  int64_t writes_ = 0;
  int64_t accesses_ = 0;
  int64_t max_accesses_ = kMaxAddressOnlyAccesses;
  bool copied_input_to_output_ = false;

  int64_t dense_of_stored(const TensorRef& t, int64_t s, bool in_pair) const {
    if (t.strides != nullptr && in_pair) strided_pair();
    return s;
  }
  [[noreturn]] void strided_pair() const;
  void count_access(int64_t accesses = 1) {
    accesses_ += accesses;
    if (accesses_ > max_accesses_) [[unlikely]] over_budget();
  }
  [[noreturn]] void over_budget() const;
};

// What whole-arena checking knows of the tensors (filled by the runtime from
// the placement and the schedule): indices are tensor indices of the subgraph.
struct ArenaTenancy {
  static constexpr int32_t kOutsideArena = -1;
  static constexpr int32_t kUnchecked = -2;  // read but never written: reported elsewhere
  static constexpr int32_t kNeededToEnd = std::numeric_limits<int32_t>::max();
  // Per tensor: the tensor whose value its bytes hold (a view's base tensor,
  // else itself), kOutsideArena or kUnchecked.
  std::vector<int32_t> value_of;
  // Per value tensor: the arena offset of its first byte.
  std::vector<int64_t> offset;
  // Per value tensor: the last step that reads it (kNeededToEnd for graph
  // outputs, -1 when nothing reads it).
  std::vector<int32_t> needed_until;
  // Per op: the value tensors it reads.
  std::vector<std::vector<int32_t>> op_reads;
  // Per value tensor: the first step that writes it (-1 for graph inputs,
  // kNeededToEnd for none). A byte whose holder predates that step was never
  // written by the tensor: TFLM leaves such bytes as the arena held them
  // (SignalEnergy writes only its [start_index, end_index)).
  std::vector<int32_t> first_written;
  // Per value tensor: empty, or per step the bytes at its start no step
  // from then on reads (schedule/consumed_prefix.h): storing over them
  // loses nothing.
  std::vector<std::vector<int64_t>> dead_prefix;
};

class CheckingMemory {
 public:
  // Checking within one op only: an op reading an input byte it already
  // overwrote. Bytes nobody wrote are taken to hold whatever reads them.
  CheckingMemory(const uint8_t* arena_base, int64_t arena_size);
  // Whole-arena checking: every byte knows which tensor's value it holds.
  // A store over a value a later step still needs, and a load of a byte
  // that no longer holds the loaded tensor's value, are clobbers. A load of
  // a byte the tensor never wrote (its holder stored it before the tensor's
  // first writer ran) reads what TFLM leaves there: no value was lost. An op may
  // overwrite its own dying input (the safe overlap): reading such a byte
  // afterwards is the clobber.
  CheckingMemory(const uint8_t* arena_base, int64_t arena_size, ArenaTenancy tenancy);

  // Before each step: `op` runs as step `step`; its last step is
  // `op_last_step` (its inputs stay needed until then).
  void begin_step(int32_t op, int32_t step, int32_t op_last_step);
  // A schedule of one whole step per op in order: step = op.
  void begin_op(int32_t op) { begin_step(op, op, op); }
  // The bytes [offset, offset + bytes) hold `tensor`'s value (graph inputs
  // before the first step).
  void hold(int32_t tensor, int64_t offset, int64_t bytes);
  // Of the bytes [offset, offset + bytes), those holding `tensor`'s value
  // hold nothing needed any more (a called subgraph's values once its call
  // is over: its next call starts afresh).
  void release(int32_t tensor, int64_t offset, int64_t bytes);

  template <typename T>
  T load(const TensorRef& t, int64_t i) {
    return load_stored<T>(t, t.storage_index(i));
  }
  template <typename T>
  void store(const TensorRef& t, int64_t i, T value) {
    store_stored<T>(t, t.storage_index(i), value);
  }
  // Element `s` of the storage (ops/eval/direct_memory.h).
  template <typename T>
  T load_stored(const TensorRef& t, int64_t s) {
    T value;
    const int64_t in_ref = s * static_cast<int64_t>(sizeof(T));
    const uint8_t* p = t.data + in_ref;
    const int32_t tensor = t.in_arena && !t.is_output ? value_of(t.index) : ArenaTenancy::kUnchecked;
    if (tensor != ArenaTenancy::kUnchecked) {
      const auto at = static_cast<size_t>(p - base_);
      for (size_t b = 0; b < sizeof(T); ++b) {
        if (holder_[at + b] != tensor) loaded_other_value(tensor, at + b, in_ref + static_cast<int64_t>(b));
      }
    }
    std::memcpy(&value, p, sizeof(T));
    return value;
  }
  template <typename T>
  void store_stored(const TensorRef& t, int64_t s, T value) {
    uint8_t* p = t.data + s * static_cast<int64_t>(sizeof(T));
    if (t.in_arena) {
      const int32_t writer = value_of(t.index);
      const auto at = static_cast<size_t>(p - base_);
      for (size_t b = 0; b < sizeof(T); ++b) {
        int32_t& holder = holder_[at + b];
        if (holder == writer) continue;
        if (holder >= 0 && still_needed(holder) && !consumed(holder, at + b)) {
          stored_over_needed_value(writer, holder, at + b);
        }
        holder = writer;
        held_since_[at + b] = step_;
      }
    }
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

  // The first clobber found, as found.
  const std::optional<Clobber>& clobber() const { return log_.first(); }
  // Every clobber, contiguous runs within an op merged (ops/clobber_log.h).
  std::vector<Clobber> clobbers() const { return log_.all(); }

 private:
  void note_overlapping_copy(const BlockCopy& copy);
  static constexpr int32_t kNoValue = -1;
  int32_t value_of(int32_t tensor) const {
    return tenancy_.value_of.empty() ? tensor : tenancy_.value_of[static_cast<size_t>(tensor)];
  }
  bool still_needed(int32_t tensor) const {
    if (tenancy_.needed_until.empty()) return false;
    const int32_t until = tenancy_.needed_until[static_cast<size_t>(tensor)];
    // Until this op's last step only when this op itself reads it: then
    // its later reads are checked as loads.
    return until > op_last_step_ || (until > step_ && read_mark_[static_cast<size_t>(tensor)] != step_mark_);
  }
  // Whether the byte at `at` of `tensor` lies in its consumed prefix now.
  bool consumed(int32_t tensor, size_t at) const {
    if (static_cast<size_t>(tensor) >= tenancy_.dead_prefix.size()) return false;
    const std::vector<int64_t>& dead = tenancy_.dead_prefix[static_cast<size_t>(tensor)];
    return step_ >= 0 && static_cast<size_t>(step_) < dead.size() && byte_within(tensor, at) < dead[static_cast<size_t>(step_)];
  }
  void loaded_other_value(int32_t tensor, size_t at, int64_t byte_in_ref);
  void stored_over_needed_value(int32_t writer, int32_t victim, size_t at);
  int64_t byte_within(int32_t tensor, size_t at) const;

  const uint8_t* base_;
  ArenaTenancy tenancy_;
  std::vector<int32_t> holder_;  // per arena byte: the tensor whose value it holds, or kNoValue
  std::vector<int32_t> held_since_;  // per arena byte: the step its holder stored it (-1: before the first)
  int32_t op_ = -1, step_ = -1, op_last_step_ = -1;
  std::vector<uint32_t> read_mark_;  // per tensor: step_mark_ when the current op reads it
  uint32_t step_mark_ = 0;
  ClobberLog log_;
};

}  // namespace dmo

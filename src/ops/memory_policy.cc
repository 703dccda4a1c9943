#include "dmo/ops/memory_policy.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace dmo {

void AddressMemory::over_budget() const {
  throw AddressBudgetExceeded(fmt::format("address-only analysis stopped after {} loads and stores "
                                          "(limit {}): too large to analyse",
                                          accesses_, max_accesses_));
}

// Abandoned as an over-budget analysis is: callers fall back to the closed form.
void AddressMemory::strided_pair() const {
  throw AddressBudgetExceeded(
      "address-only analysis abandoned: a kernel walking storage reads or writes a strided view of the pair");
}

CheckingMemory::CheckingMemory(const uint8_t* arena_base, int64_t arena_size)
    : CheckingMemory(arena_base, arena_size, ArenaTenancy{}) {}

CheckingMemory::CheckingMemory(const uint8_t* arena_base, int64_t arena_size, ArenaTenancy tenancy)
    : base_(arena_base),
      tenancy_(std::move(tenancy)),
      holder_(static_cast<size_t>(arena_size), kNoValue),
      held_since_(static_cast<size_t>(arena_size), -1),
      read_mark_(tenancy_.value_of.size(), 0) {}

void CheckingMemory::begin_step(int32_t op, int32_t step, int32_t op_last_step) {
  op_ = op;
  step_ = step;
  op_last_step_ = op_last_step;
  ++step_mark_;
  if (static_cast<size_t>(op) < tenancy_.op_reads.size()) {
    for (int32_t tensor : tenancy_.op_reads[static_cast<size_t>(op)]) read_mark_[static_cast<size_t>(tensor)] = step_mark_;
  }
}

void CheckingMemory::hold(int32_t tensor, int64_t offset, int64_t bytes) {
  std::fill(holder_.begin() + offset, holder_.begin() + offset + bytes, value_of(tensor));
  std::fill(held_since_.begin() + offset, held_since_.begin() + offset + bytes, step_);
}

void CheckingMemory::release(int32_t tensor, int64_t offset, int64_t bytes) {
  const int32_t value = value_of(tensor);
  std::replace(holder_.begin() + offset, holder_.begin() + offset + bytes, value, kNoValue);
}

int64_t CheckingMemory::byte_within(int32_t tensor, size_t at) const {
  return static_cast<int64_t>(at) - tenancy_.offset[static_cast<size_t>(tensor)];
}

void CheckingMemory::loaded_other_value(int32_t tensor, size_t at, int64_t byte_in_ref) {
  int32_t& holder = holder_[at];
  if (holder == kNoValue) {
    // Put there before checking began (a test or tool filling a tensor).
    holder = tensor;
    return;
  }
  if (!tenancy_.first_written.empty() && held_since_[at] < tenancy_.first_written[static_cast<size_t>(tensor)]) {
    return;  // never written by `tensor`: it holds what was there before, as in TFLM
  }
  const int64_t byte = tenancy_.offset.empty() ? byte_in_ref : byte_within(tensor, at);
  log_.add(Clobber{op_, Clobber::Access::kLoad, holder, tensor, byte, 1});
}

void CheckingMemory::stored_over_needed_value(int32_t writer, int32_t victim, size_t at) {
  log_.add(Clobber{op_, Clobber::Access::kStore, writer, victim, byte_within(victim, at), 1});
}

void CheckingMemory::note_overlapping_copy(const BlockCopy& copy) {
  if (std::optional<int64_t> byte = first_overlapped_source_byte(copy)) {
    log_.add(Clobber{op_, Clobber::Access::kStore, value_of(copy.to.index), value_of(copy.from.index), *byte,
                     copy.element_size});
  }
}

}  // namespace dmo

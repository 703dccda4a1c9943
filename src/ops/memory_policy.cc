#include "dmo/ops/memory_policy.h"

#include <algorithm>

namespace dmo {

void CheckingMemory::begin_op(int32_t op) {
  op_ = op;
  // A new stamp marks this op's writes; clear the shadow only when stamps wrap.
  if (++stamp_ == 0) {
    std::fill(written_.begin(), written_.end(), 0);
    stamp_ = 1;
  }
}

void CheckingMemory::note_overlapping_copy(const BlockCopy& copy) {
  if (clobber_) return;
  if (std::optional<int64_t> byte = first_overlapped_source_byte(copy)) clobber_ = Clobber{op_, copy.from.index, *byte};
}

}  // namespace dmo

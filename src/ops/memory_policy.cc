#include "dmo/ops/memory_policy.h"

#include <algorithm>

namespace dmo {

int64_t AddressMemory::safe_overlap() const {
  // Walk the writes backwards keeping the lowest input byte read after each.
  int64_t min_read_after = pending_min_read_;
  int64_t delta = std::numeric_limits<int64_t>::min();
  for (size_t k = max_write_at_.size(); k-- > 0;) {
    if (min_read_after != kNone) delta = std::max(delta, max_write_at_[k] - min_read_after + 1);
    min_read_after = std::min(min_read_after, reads_before_write_[k]);
  }
  if (delta == std::numeric_limits<int64_t>::min()) return output_bytes_;
  return std::clamp<int64_t>(output_bytes_ - delta, 0, output_bytes_);
}

void CheckingMemory::begin_op(int32_t op) {
  op_ = op;
  // A new stamp marks this op's writes; clear the shadow only when stamps wrap.
  if (++stamp_ == 0) {
    std::fill(written_.begin(), written_.end(), 0);
    stamp_ = 1;
  }
}

}  // namespace dmo

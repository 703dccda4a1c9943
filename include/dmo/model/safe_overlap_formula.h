// The safe overlap O_s of one op from the order of its accesses: how many
// bytes the end of its output may overlap the start of its input (output
// below the input) without any write landing on an input byte still to be
// read. With byte offsets from each buffer's own start,
//   O_s = |O| - delta,  delta = max over writes w, reads r after w of
//                                (highest output byte written up to w) - r + 1,
// clamped to [0, |O|]; |O| when no read follows a write. (REFERENCE.md 2.1:
// |O| + min over steps of (suffix-min input read - prefix-max output write).)
// The descending O_s (the input's end over the start of an output above it)
// is the same formula on mirrored offsets: b -> size - 1 - b.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>

namespace dmo {

// "No input byte was read here" in a per-write sequence.
inline constexpr int64_t kNoInputRead = std::numeric_limits<int64_t>::max();

// Folds the accesses in program order in constant memory: maxW only grows,
// so the write that maximises delta for a read is the latest one before it.
class SafeOverlapFold {
 public:
  // An input read, by its lowest byte (the one an output below reaches first).
  void read(int64_t lowest_byte) {
    if (max_written_ < 0 || lowest_byte == kNoInputRead) return;
    delta_ = std::max(delta_, max_written_ - lowest_byte + 1);
  }
  // An output write, by its highest byte.
  void write(int64_t highest_byte) { max_written_ = std::max(max_written_, highest_byte); }

  int64_t safe_overlap(int64_t output_bytes) const {
    if (delta_ == kNoDelta) return output_bytes;
    return std::clamp<int64_t>(output_bytes - delta_, 0, output_bytes);
  }

 private:
  static constexpr int64_t kNoDelta = std::numeric_limits<int64_t>::min();
  int64_t max_written_ = -1;
  int64_t delta_ = kNoDelta;
};

// O_s from per-write sequences: for write k, max_written_so_far[k] is the
// highest output byte written by writes 0..k and min_read_before[k] the lowest
// input byte read since write k-1 (kNoInputRead when none);
// min_read_after_last is the lowest read after the last write.
inline int64_t safe_overlap_from_writes(std::span<const int64_t> max_written_so_far,
                                        std::span<const int64_t> min_read_before, int64_t min_read_after_last,
                                        int64_t output_bytes) {
  SafeOverlapFold fold;
  for (size_t k = 0; k < max_written_so_far.size(); ++k) {
    if (k < min_read_before.size()) fold.read(min_read_before[k]);
    fold.write(max_written_so_far[k]);
  }
  fold.read(min_read_after_last);
  return fold.safe_overlap(output_bytes);
}

}  // namespace dmo

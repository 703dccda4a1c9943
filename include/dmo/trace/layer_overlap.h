// The bottom-up safe overlap of one traced layer, computed while the trace
// streams past in constant memory.
//
// O_s is |O| - delta with delta = max over write points of
// (maxW - minR_after) + 1 (see AddressMemory::safe_overlap). maxW only grows,
// so for each load the write point that maximises the difference is the
// latest store before it: delta = max over loads that follow a store of
// (highest output byte written so far - lowest input byte of the load) + 1.
// That needs two numbers, not the list of writes.
//
// The descending O_s (how far the END of the input may overlap the START of
// an output placed above it) is the same formula on mirrored addresses
// (input byte b -> |I|-1-b, output byte b -> |O|-1-b): the lowest output
// byte written so far and, per load after a store, its highest input byte.
// Both come from any trace: they describe the traced access order, whatever
// order the program meant to walk.
#pragma once

#include <cstdint>
#include <limits>

namespace dmo {

// A buffer in the traced program's address space.
struct AddressRange {
  uint64_t begin = 0;
  uint64_t bytes = 0;

  uint64_t end() const { return begin + bytes; }
  bool intersects(uint64_t address, uint64_t size) const {
    return size > 0 && bytes > 0 && address < end() && address + size > begin;
  }
};

class LayerOverlap {
 public:
  LayerOverlap(AddressRange input, AddressRange output) : input_(input), output_(output) {}

  // A load or store of `size` bytes at `address`. Only the bytes inside the
  // input (loads) or the output (stores) count; returns whether any did.
  // A load's lowest and highest bytes and a store's highest and lowest bytes
  // are what matter (the second of each only for the mirrored value).
  bool load(uint64_t address, uint64_t size) {
    if (!input_.intersects(address, size)) return false;
    int64_t lowest = static_cast<int64_t>((address > input_.begin ? address : input_.begin) - input_.begin);
    uint64_t last = address + size < input_.end() ? address + size : input_.end();
    int64_t highest = static_cast<int64_t>(last - 1 - input_.begin);
    ++loads_;
    if (max_write_ >= 0 && max_write_ - lowest + 1 > delta_) delta_ = max_write_ - lowest + 1;
    if (min_write_ >= 0) {
      // Mirrored: (|O|-1-min_write) - (|I|-1-highest) + 1.
      const int64_t d = static_cast<int64_t>(output_.bytes) - 1 - min_write_ -
                        (static_cast<int64_t>(input_.bytes) - 1 - highest) + 1;
      if (d > delta_descending_) delta_descending_ = d;
    }
    return true;
  }
  bool store(uint64_t address, uint64_t size) {
    if (!output_.intersects(address, size)) return false;
    uint64_t last = address + size < output_.end() ? address + size : output_.end();
    int64_t highest = static_cast<int64_t>(last - 1 - output_.begin);
    int64_t lowest = static_cast<int64_t>((address > output_.begin ? address : output_.begin) - output_.begin);
    ++stores_;
    if (highest > max_write_) max_write_ = highest;
    if (min_write_ < 0 || lowest < min_write_) min_write_ = lowest;
    return true;
  }

  // Bytes the end of the output may overlap the start of the input (output
  // below the input).
  int64_t safe_overlap() const { return clamped(delta_); }
  // Bytes the end of the input may overlap the start of the output (output
  // above the input).
  int64_t safe_overlap_descending() const { return clamped(delta_descending_); }

  int64_t loads() const { return loads_; }
  int64_t stores() const { return stores_; }
  int64_t max_write() const { return max_write_; }  // -1 before the first store
  int64_t min_write() const { return min_write_; }  // -1 before the first store
  const AddressRange& input() const { return input_; }
  const AddressRange& output() const { return output_; }

 private:
  static constexpr int64_t kNoDelta = std::numeric_limits<int64_t>::min();

  int64_t clamped(int64_t delta) const {
    const int64_t output_bytes = static_cast<int64_t>(output_.bytes);
    if (delta == kNoDelta) return output_bytes;  // no load follows a store
    int64_t overlap = output_bytes - delta;
    return overlap < 0 ? 0 : overlap > output_bytes ? output_bytes : overlap;
  }

  AddressRange input_, output_;
  int64_t max_write_ = -1, min_write_ = -1;
  int64_t delta_ = kNoDelta, delta_descending_ = kNoDelta;
  int64_t loads_ = 0, stores_ = 0;
};

}  // namespace dmo

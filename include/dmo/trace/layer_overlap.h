// The bottom-up safe overlap of one traced layer, computed while the trace
// streams past in constant memory.
//
// O_s is |O| - delta with delta = max over write points of
// (maxW - minR_after) + 1 (see AddressMemory::safe_overlap). maxW only grows,
// so for each load the write point that maximises the difference is the
// latest store before it: delta = max over loads that follow a store of
// (highest output byte written so far - lowest input byte of the load) + 1.
// That needs two numbers, not the list of writes.
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
  // A load's lowest byte and a store's highest byte are what matter.
  bool load(uint64_t address, uint64_t size) {
    if (!input_.intersects(address, size)) return false;
    int64_t lowest = static_cast<int64_t>((address > input_.begin ? address : input_.begin) - input_.begin);
    ++loads_;
    if (max_write_ >= 0 && max_write_ - lowest + 1 > delta_) delta_ = max_write_ - lowest + 1;
    return true;
  }
  bool store(uint64_t address, uint64_t size) {
    if (!output_.intersects(address, size)) return false;
    uint64_t last = address + size < output_.end() ? address + size : output_.end();
    int64_t highest = static_cast<int64_t>(last - 1 - output_.begin);
    ++stores_;
    if (highest > max_write_) max_write_ = highest;
    return true;
  }

  // Bytes the end of the output may overlap the start of the input.
  int64_t safe_overlap() const {
    const int64_t output_bytes = static_cast<int64_t>(output_.bytes);
    if (delta_ == kNoDelta) return output_bytes;  // no load follows a store
    int64_t overlap = output_bytes - delta_;
    return overlap < 0 ? 0 : overlap > output_bytes ? output_bytes : overlap;
  }

  int64_t loads() const { return loads_; }
  int64_t stores() const { return stores_; }
  int64_t max_write() const { return max_write_; }  // -1 before the first store
  const AddressRange& input() const { return input_; }
  const AddressRange& output() const { return output_; }

 private:
  static constexpr int64_t kNoDelta = std::numeric_limits<int64_t>::min();
  AddressRange input_, output_;
  int64_t max_write_ = -1;
  int64_t delta_ = kNoDelta;
  int64_t loads_ = 0, stores_ = 0;
};

}  // namespace dmo

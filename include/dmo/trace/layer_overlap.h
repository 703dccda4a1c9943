// The bottom-up safe overlap of one traced layer, computed while the trace
// streams past in constant memory, by the formula of
// dmo/model/safe_overlap_formula.h: ascending on the offsets as they are,
// descending on mirrored offsets (input byte b -> |I|-1-b, output byte
// b -> |O|-1-b), where a load's highest byte and a store's lowest byte are
// the ones that count. Both come from any trace: they describe the traced
// access order, whatever order the program meant to walk.
#pragma once

#include <algorithm>
#include <cstdint>

#include "dmo/model/safe_overlap_formula.h"

namespace dmo {

// The first and last byte of an access inside a buffer, from its start.
struct AccessBytes {
  int64_t lowest, highest;
};

// A buffer in the traced program's address space.
struct AddressRange {
  uint64_t begin = 0;
  uint64_t bytes = 0;

  uint64_t end() const { return begin + bytes; }
  bool intersects(uint64_t address, uint64_t size) const {
    return size > 0 && bytes > 0 && address < end() && address + size > begin;
  }
  // Of an access that intersects the buffer.
  AccessBytes bytes_of(uint64_t address, uint64_t size) const {
    const uint64_t first = std::max(address, begin);
    const uint64_t last = std::min(address + size, end()) - 1;
    return {static_cast<int64_t>(first - begin), static_cast<int64_t>(last - begin)};
  }
};

class LayerOverlap {
 public:
  LayerOverlap(AddressRange input, AddressRange output) : input_(input), output_(output) {}

  // A load or store of `size` bytes at `address`. Only the bytes inside the
  // input (loads) or the output (stores) count; returns whether any did.
  bool load(uint64_t address, uint64_t size) {
    if (!input_.intersects(address, size)) return false;
    const AccessBytes bytes = input_.bytes_of(address, size);
    ++loads_;
    ascending_.read(bytes.lowest);
    descending_.read(static_cast<int64_t>(input_.bytes) - 1 - bytes.highest);
    return true;
  }
  bool store(uint64_t address, uint64_t size) {
    if (!output_.intersects(address, size)) return false;
    const AccessBytes bytes = output_.bytes_of(address, size);
    ++stores_;
    ascending_.write(bytes.highest);
    descending_.write(static_cast<int64_t>(output_.bytes) - 1 - bytes.lowest);
    return true;
  }

  // Bytes the end of the output may overlap the start of the input (output
  // below the input).
  int64_t safe_overlap() const { return ascending_.safe_overlap(static_cast<int64_t>(output_.bytes)); }
  // Bytes the end of the input may overlap the start of the output (output
  // above the input).
  int64_t safe_overlap_descending() const { return descending_.safe_overlap(static_cast<int64_t>(output_.bytes)); }

  int64_t loads() const { return loads_; }
  int64_t stores() const { return stores_; }
  const AddressRange& input() const { return input_; }
  const AddressRange& output() const { return output_; }

 private:
  AddressRange input_, output_;
  SafeOverlapFold ascending_, descending_;
  int64_t loads_ = 0, stores_ = 0;
};

}  // namespace dmo

// A zero-filled byte buffer whose pages the system provides only when first
// touched (calloc): an interpreter that only records addresses (the
// algorithmic O_s) never pays for an arena as large as every tensor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>

namespace dmo {

class ZeroedBytes {
 public:
  ZeroedBytes() = default;
  explicit ZeroedBytes(size_t size) : bytes_(static_cast<uint8_t*>(std::calloc(size ? size : 1, 1))), size_(size) {
    if (!bytes_) throw std::bad_alloc();
  }
  uint8_t* data() const { return bytes_.get(); }
  size_t size() const { return size_; }

 private:
  struct Free {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  std::unique_ptr<uint8_t, Free> bytes_;
  size_t size_ = 0;
};

}  // namespace dmo

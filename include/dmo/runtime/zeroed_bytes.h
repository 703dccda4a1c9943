// A zero-filled byte buffer whose pages the system provides only when first
// touched: an interpreter that only records addresses (the algorithmic O_s)
// never pays for an arena as large as every tensor. Large buffers are
// mapped from the system directly: calloc would take them from the heap
// (and clear them byte by byte) once the allocator's mapping threshold has
// grown past their size, as it does after the first large block is freed.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>

namespace dmo {

// Gives back what ZeroedBytes took: a mapping of `mapped` bytes, or (0)
// a calloc block.
struct ZeroedBytesRelease {
  size_t mapped = 0;
  void operator()(uint8_t* p) const {
    if (mapped) {
      munmap(p, mapped);
    } else {
      std::free(p);
    }
  }
};

class ZeroedBytes {
 public:
  ZeroedBytes() = default;
  explicit ZeroedBytes(size_t size) : size_(size) {
    if (size >= kMappedBytes) {
      void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) throw std::bad_alloc();
      bytes_ = Bytes(static_cast<uint8_t*>(p), ZeroedBytesRelease{size});
    } else {
      bytes_ = Bytes(static_cast<uint8_t*>(std::calloc(size ? size : 1, 1)), ZeroedBytesRelease{0});
      if (!bytes_) throw std::bad_alloc();
    }
  }
  uint8_t* data() const { return bytes_.get(); }
  size_t size() const { return size_; }

 private:
  static constexpr size_t kMappedBytes = size_t{1} << 16;
  using Bytes = std::unique_ptr<uint8_t, ZeroedBytesRelease>;
  Bytes bytes_;
  size_t size_ = 0;
};

}  // namespace dmo

// Broadcasting two inputs to one output with NumPy's rules, in the order
// TFLite's reference kernels visit it (BroadcastBinaryFunction6DSlow and its
// siblings): the output in row-major order, each input following along with
// stride 0 in the dimensions it broadcasts. With equal shapes this is the
// plain flat order, element i of both inputs for output element i.
// Freestanding: the layout is plain data (src/ops/broadcast.h checks and
// builds it), walked by the host kernels and generated device code alike.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace dmo {

// The output's dimensions and each input's strides, all extended to the
// same rank, in fixed arrays so that walking them allocates nothing.
struct BroadcastLayout {
  // TFLite broadcasts up to 6 dimensions.
  static constexpr size_t kMaxRank = 6;
  using Strides = std::array<int64_t, kMaxRank>;

  size_t rank_ = 0;
  std::array<int32_t, kMaxRank> dims_{};
  Strides stride_a_{}, stride_b_{};
  bool flat_ = true;

  template <class F>
  void each_field(F&& f) const {
    f(rank_), f(dims_), f(stride_a_), f(stride_b_), f(flat_);
  }
};

// Walks the output of a BroadcastLayout in row-major order, each input
// following along with stride 0 in the dimensions it broadcasts.
class BroadcastCursor {
 public:
  explicit BroadcastCursor(const BroadcastLayout& shape) : shape_(shape) {}

  // Element indices of the two inputs for the current output element.
  int64_t first() const { return shape_.flat_ ? position_ : a_; }
  int64_t second() const { return shape_.flat_ ? position_ : b_; }

  // Moves to the next output element in row-major order.
  void advance() {
    ++position_;
    if (shape_.flat_) return;
    for (size_t d = shape_.rank_; d-- > 0;) {
      if (++index_[d] < shape_.dims_[d]) {
        a_ += shape_.stride_a_[d];
        b_ += shape_.stride_b_[d];
        return;
      }
      a_ -= shape_.stride_a_[d] * (shape_.dims_[d] - 1);
      b_ -= shape_.stride_b_[d] * (shape_.dims_[d] - 1);
      index_[d] = 0;
    }
  }

 private:
  const BroadcastLayout& shape_;
  std::array<int32_t, BroadcastLayout::kMaxRank> index_{};
  int64_t position_ = 0, a_ = 0, b_ = 0;
};

// Element i of a tensor of `byte_size` bytes read as a T. TFLite Micro
// picks the arithmetic of ADD and SUB from the output type and reads the
// inputs' bytes as that type even when an input has another type; past the
// input's bytes it reads the arena's, zero in a fresh arena. dmo reads
// those as zero and never loads outside the tensor.
template <typename T, class Memory, class Ref>
T load_as(Memory& mem, const Ref& t, int64_t i, int64_t byte_size) {
  if ((i + 1) * static_cast<int64_t>(sizeof(T)) > byte_size) return T{};
  return mem.template load<T>(t, i);
}

// out[i] = f(a[ia], b[ib]) over the output in row-major order, storing each
// output element right after loading the two input elements it needs.
template <typename T, class IO, class Memory, class F>
void broadcast_binary(const BroadcastLayout& shape, const IO& io, Memory& mem, const F& f) {
  const auto& a = io.input(0);
  const auto& b = io.input(1);
  const auto& out = io.output(0);
  BroadcastCursor cursor(shape);
  const int64_t n = out.elements();
  for (int64_t i = 0; i < n; ++i, cursor.advance()) {
    const T x = load_as<T>(mem, a, cursor.first(), a.byte_size());
    const T y = load_as<T>(mem, b, cursor.second(), b.byte_size());
    mem.template store<T>(out, i, f(x, y));
  }
}

// broadcast_binary with its layout and per-pair arithmetic F (an aggregate
// of plain values) as one kernel: what generated code defines from the
// host kernel's fields and calls.
template <typename T, class F>
struct BroadcastBinaryLoops {
  BroadcastLayout layout;
  F f;

  template <class IO, class Memory>
  void eval(const IO& io, Memory& mem) const {
    broadcast_binary<T>(layout, io, mem, f);
  }
  template <class G>
  void each_field(G&& g) const {
    g(layout), g(f);
  }
};

}  // namespace dmo

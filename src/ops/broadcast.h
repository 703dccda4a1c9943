// Broadcasting two inputs to one output with NumPy's rules, in the order
// TFLite's reference kernels visit it (BroadcastBinaryFunction6DSlow and its
// siblings): the output in row-major order, each input following along with
// stride 0 in the dimensions it broadcasts. With equal shapes this is the
// plain flat order, element i of both inputs for output element i.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>

#include <fmt/format.h>

#include "dmo/model/tensor.h"
#include "dmo/ops/kernel_io.h"
#include "dmo/ops/op_context.h"
#include "dmo/ops/prepared_kernel.h"

namespace dmo {

// Two input shapes broadcast to an output shape, checked once in prepare:
// the output's dimensions and each input's strides, all extended to the
// same rank, in fixed arrays so that walking them allocates nothing.
class BroadcastShape {
 public:
  // TFLite broadcasts up to 6 dimensions.
  static constexpr size_t kMaxRank = 6;

  // Fails the op unless `a` and `b` broadcast to exactly `output`.
  BroadcastShape(const OpContext& ctx, const Shape& a, const Shape& b, const Shape& output) {
    const size_t rank = std::max({a.size(), b.size(), output.size()});
    ctx.require(rank <= kMaxRank, fmt::format("broadcasting supports up to {} dimensions, got {}", kMaxRank, rank));
    auto extended = [rank](const Shape& s) {
      Shape e(rank - s.size(), 1);
      e.insert(e.end(), s.begin(), s.end());
      return e;
    };
    const Shape ea = extended(a), eb = extended(b), dims = extended(output);
    for (size_t d = 0; d < rank; ++d) {
      const bool fits = (ea[d] == dims[d] || ea[d] == 1) && (eb[d] == dims[d] || eb[d] == 1) &&
                        (dims[d] == std::max(ea[d], eb[d]) || dims[d] == 0);
      ctx.require(fits, fmt::format("input shapes {} and {} do not broadcast to output shape {}",
                                    shape_to_string(a), shape_to_string(b), shape_to_string(output)));
    }
    rank_ = rank;
    std::copy(dims.begin(), dims.end(), dims_.begin());
    flat_ = ea == dims && eb == dims;
    stride_a_ = broadcast_strides(ea);
    stride_b_ = broadcast_strides(eb);
  }

 private:
  friend class BroadcastCursor;
  using Strides = std::array<int64_t, kMaxRank>;

  // Row-major strides of an input, 0 where it is broadcast along the output.
  Strides broadcast_strides(const Shape& input) const {
    Strides strides{};
    int64_t stride = 1;
    for (size_t d = input.size(); d-- > 0;) {
      strides[d] = input[d] == dims_[d] ? stride : 0;
      stride *= input[d];
    }
    return strides;
  }

  size_t rank_ = 0;
  std::array<int32_t, kMaxRank> dims_{};
  Strides stride_a_{}, stride_b_{};
  bool flat_ = true;
};

// Walks the output of a BroadcastShape in row-major order, each input
// following along with stride 0 in the dimensions it broadcasts.
class BroadcastCursor {
 public:
  explicit BroadcastCursor(const BroadcastShape& shape) : shape_(shape) {}

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
  const BroadcastShape& shape_;
  std::array<int32_t, BroadcastShape::kMaxRank> index_{};
  int64_t position_ = 0, a_ = 0, b_ = 0;
};

// Element i of `t` read as a T. TFLite Micro picks the arithmetic of ADD and
// SUB from the output type and reads the inputs' bytes as that type even
// when an input has another type; past the input's bytes it reads the
// arena's, zero in a fresh arena. dmo reads those as zero and never loads
// outside the tensor.
template <typename T, class Memory>
T load_as(Memory& mem, const TensorRef& t, int64_t i) {
  if ((i + 1) * static_cast<int64_t>(sizeof(T)) > t.tensor->byte_size) return T{};
  return mem.template load<T>(t, i);
}

// out[i] = f(a[ia], b[ib]) over the output in row-major order, storing each
// output element right after loading the two input elements it needs.
template <typename T, class Memory, class F>
void broadcast_binary(const BroadcastShape& shape, const KernelIO& io, Memory& mem, const F& f) {
  const TensorRef& a = io.input(0);
  const TensorRef& b = io.input(1);
  const TensorRef& out = io.output(0);
  BroadcastCursor cursor(shape);
  const int64_t n = out.elements();
  for (int64_t i = 0; i < n; ++i, cursor.advance()) {
    const T x = load_as<T>(mem, a, cursor.first());
    const T y = load_as<T>(mem, b, cursor.second());
    mem.template store<T>(out, i, f(x, y));
  }
}

// A prepared binary kernel: the checked broadcast and `f`, which carries
// the prepared parameters (a lambda capturing them by value).
template <typename T, class F>
struct BroadcastBinaryKernel {
  BroadcastShape shape;
  F f;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    broadcast_binary<T>(shape, io, mem, f);
  }
};

// Prepares f over inputs 0 and 1 of `ctx` broadcast to output 0; fails
// unless their shapes broadcast.
template <typename T, class F>
PreparedKernel broadcast_binary_kernel(const OpContext& ctx, F f) {
  BroadcastShape shape(ctx, ctx.input(0).shape(), ctx.input(1).shape(), ctx.output(0).shape());
  return PreparedKernel::of(BroadcastBinaryKernel<T, F>{shape, std::move(f)});
}

}  // namespace dmo

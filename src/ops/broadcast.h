// Broadcasting two inputs to one output with NumPy's rules, in the order
// TFLite's reference kernels visit it (BroadcastBinaryFunction6DSlow and its
// siblings): the output in row-major order, each input following along with
// stride 0 in the dimensions it broadcasts. With equal shapes this is the
// plain flat order, element i of both inputs for output element i.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include <fmt/format.h>

#include "dmo/model/tensor.h"
#include "dmo/ops/op_context.h"

namespace dmo {

class BroadcastCursor {
 public:
  // TFLite broadcasts up to 6 dimensions.
  static constexpr size_t kMaxRank = 6;

  // Fails the op unless `a` and `b` broadcast to exactly `output`.
  BroadcastCursor(const OpContext& ctx, const Shape& a, const Shape& b, const Shape& output) {
    const size_t rank = std::max({a.size(), b.size(), output.size()});
    ctx.require(rank <= kMaxRank, fmt::format("broadcasting supports up to {} dimensions, got {}", kMaxRank, rank));
    auto extended = [rank](const Shape& s) {
      Shape e(rank - s.size(), 1);
      e.insert(e.end(), s.begin(), s.end());
      return e;
    };
    const Shape ea = extended(a), eb = extended(b);
    dims_ = extended(output);
    for (size_t d = 0; d < rank; ++d) {
      const bool fits = (ea[d] == dims_[d] || ea[d] == 1) && (eb[d] == dims_[d] || eb[d] == 1) &&
                        (dims_[d] == std::max(ea[d], eb[d]) || dims_[d] == 0);
      ctx.require(fits, fmt::format("input shapes {} and {} do not broadcast to output shape {}",
                                    shape_to_string(a), shape_to_string(b), shape_to_string(output)));
    }
    flat_ = ea == dims_ && eb == dims_;
    stride_a_ = broadcast_strides(ea);
    stride_b_ = broadcast_strides(eb);
    index_.assign(rank, 0);
  }

  // Element indices of the two inputs for the current output element.
  int64_t first() const { return flat_ ? position_ : a_; }
  int64_t second() const { return flat_ ? position_ : b_; }

  // Moves to the next output element in row-major order.
  void advance() {
    ++position_;
    if (flat_) return;
    for (size_t d = dims_.size(); d-- > 0;) {
      if (++index_[d] < dims_[d]) {
        a_ += stride_a_[d];
        b_ += stride_b_[d];
        return;
      }
      a_ -= stride_a_[d] * (dims_[d] - 1);
      b_ -= stride_b_[d] * (dims_[d] - 1);
      index_[d] = 0;
    }
  }

 private:
  // Row-major strides of an input, 0 where it is broadcast along the output.
  std::vector<int64_t> broadcast_strides(const Shape& input) const {
    std::vector<int64_t> strides(input.size(), 0);
    int64_t stride = 1;
    for (size_t d = input.size(); d-- > 0;) {
      strides[d] = input[d] == dims_[d] ? stride : 0;
      stride *= input[d];
    }
    return strides;
  }

  Shape dims_;
  std::vector<int64_t> stride_a_, stride_b_;
  std::vector<int32_t> index_;
  bool flat_ = true;
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
void broadcast_binary(const OpContext& ctx, Memory& mem, F&& f) {
  const TensorRef& a = ctx.input(0);
  const TensorRef& b = ctx.input(1);
  const TensorRef& out = ctx.output(0);
  BroadcastCursor cursor(ctx, a.shape(), b.shape(), out.shape());
  const int64_t n = out.elements();
  for (int64_t i = 0; i < n; ++i, cursor.advance()) {
    const T x = load_as<T>(mem, a, cursor.first());
    const T y = load_as<T>(mem, b, cursor.second());
    mem.template store<T>(out, i, f(x, y));
  }
}

}  // namespace dmo

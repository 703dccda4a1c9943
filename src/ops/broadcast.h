// Broadcasting two inputs to one output with NumPy's rules, in the order
// TFLite's reference kernels visit it (BroadcastBinaryFunction6DSlow and its
// siblings): the output in row-major order, each input following along with
// stride 0 in the dimensions it broadcasts. With equal shapes this is the
// plain flat order, element i of both inputs for output element i.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "dmo/model/tensor.h"
#include "dmo/ops/eval/broadcast_loops.h"
#include "dmo/ops/kernel_io.h"
#include "dmo/ops/op_context.h"
#include "dmo/ops/prepared_kernel.h"
#include "instance_kernel.h"

namespace dmo {

// Two input shapes broadcast to an output shape, checked once in prepare
// (ops/eval/broadcast_loops.h holds the layout the loops walk).
class BroadcastShape : public BroadcastLayout {
 public:
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
};

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

// The same with a device path: `f` is an aggregate of eval/ whose C++ type
// generated code spells `f_type` (ops/device_instance.h).
template <typename T, class F>
PreparedKernel broadcast_binary_instance(const OpContext& ctx, F f, std::string_view f_type) {
  const BroadcastShape shape(ctx, ctx.input(0).shape(), ctx.input(1).shape(), ctx.output(0).shape());
  return instance_kernel(BroadcastBinaryLoops<T, F>{shape, std::move(f)},
                         fmt::format("BroadcastBinaryLoops<{}, {}>", device_type_name<T>(), f_type),
                         ctx.output(0).type());
}

}  // namespace dmo

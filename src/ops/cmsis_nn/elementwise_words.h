// The loop of CMSIS-NN's element-wise binary functions (arm_elementwise_add_s8,
// arm_elementwise_mul_s8 / _s16, ...) without MVE: groups of `per_word`
// elements, one 32-bit word of each input read (input 1's, then input 2's)
// before the group's results are written as one word, then the elements
// left over one by one (load input 1, load input 2, store). `per_word` 1 is
// the plain element loop of the functions' portable C path.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <utility>

#include "dmo/model/tensor.h"
#include "dmo/ops/kernel_io.h"
#include "dmo/ops/op_context.h"
#include "dmo/ops/prepared_kernel.h"

namespace dmo {

template <typename T, class F>
struct CmsisElementwiseKernel {
  int64_t elements = 0;
  int32_t per_word = 1;  // 1, 2 (int16 words) or 4 (int8 words)
  F f;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const TensorRef& a = io.input(0);
    const TensorRef& b = io.input(1);
    const TensorRef& out = io.output(0);
    int64_t i = 0;
    if (per_word > 1) {
      for (; i + per_word <= elements; i += per_word) {
        std::array<T, 4> x{}, y{};
        for (int32_t k = 0; k < per_word; ++k) x[static_cast<size_t>(k)] = mem.template load<T>(a, i + k);
        for (int32_t k = 0; k < per_word; ++k) y[static_cast<size_t>(k)] = mem.template load<T>(b, i + k);
        for (int32_t k = 0; k < per_word; ++k) {
          mem.template store<T>(out, i + k, f(x[static_cast<size_t>(k)], y[static_cast<size_t>(k)]));
        }
      }
    }
    for (; i < elements; ++i) {
      const T x = mem.template load<T>(a, i);
      const T y = mem.template load<T>(b, i);
      mem.template store<T>(out, i, f(x, y));
    }
  }
};

// Whether TFLM's glue sees a broadcast (ProcessBroadcastShapes): the input
// shapes differ once extended with leading ones to the same rank.
inline bool inputs_broadcast(const OpContext& ctx) {
  Shape a = ctx.input(0).shape(), b = ctx.input(1).shape();
  const size_t rank = std::max(a.size(), b.size());
  a.insert(a.begin(), rank - a.size(), 1);
  b.insert(b.begin(), rank - b.size(), 1);
  return a != b;
}

// The prepared kernel over the whole (unbroadcast) tensors, naming `function`.
template <typename T, class F>
PreparedKernel cmsis_elementwise_kernel(const OpContext& ctx, int32_t per_word, std::string function, F f) {
  PreparedKernel prepared =
      PreparedKernel::of(CmsisElementwiseKernel<T, F>{ctx.output(0).elements(), per_word, std::move(f)});
  prepared.implementation = std::move(function);
  return prepared;
}

}  // namespace dmo

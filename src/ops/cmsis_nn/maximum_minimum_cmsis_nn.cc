// MAXIMUM and MINIMUM in the cmsis-nn families, mirroring TFLM's
// kernels/cmsis_nn/maximum_minimum.cc (EvalMaximum / EvalMinimum,
// tflite-micro commit 2ba41b0f, FillVariableShape through
// RuntimeShape::ExtendedShape(4, ...)): an INT8 output goes to CMSIS-NN's
// arm_maximum_s8 / arm_minimum_s8 for every shape, broadcast or not;
// FLOAT32, INT16, INT32 and INT64 run TFLM's reference kernel. Shapes of
// more than 4 dimensions do not extend to 4 (a failed check in TFLM), so
// dmo refuses them.
// arm_maximum_s8 and arm_minimum_s8 (ARM-software/CMSIS-NN
// Source/BasicMathFunctions/arm_maximum_s8.c and arm_minimum_s8.c at
// 6e7ac784, V.1.0.0; their paths differ only with MVE, so the portable and
// DSP families are one) store the output front to back in runs: equal
// input shapes are one run reading both inputs element by element; a
// one-element input is read once before its run; otherwise each batch,
// then each row, then each pixel is a run of one of those two kinds, the
// input pointers stepped back after each pixel and row where an input is
// broadcast. That stepping misses one case: an input of several rows of
// one element (h > 1, w = c = 1) against an input of several pixels per
// row (w > 1) moves two elements on per row, so CMSIS-NN reads every other
// element, then past the input.
// dmo finds such shapes by walking the runs once in prepare against
// TFLite's broadcast and refuses them. The values are TFLM's: CMSIS-NN
// keeps the first input on ties, which for integers is the same value.
#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "../broadcast.h"
#include "cmsis_nn_kernels.h"
#include "dmo/ops/kernels.h"

namespace dmo {
namespace {

constexpr size_t kCmsisDims = 4;
using CmsisDims = std::array<int64_t, kCmsisDims>;  // n, h, w, c

// The runs arm_maximum_s8 / arm_minimum_s8 make, in their order, told to
// `runs`: `both(at1, at2, out, count)` reads both inputs element by element
// from element at1 of input 1 and at2 of input 2; `scalar(which, at_scalar,
// at_other, out, count)` reads element at_scalar of input `which` (0 or 1)
// once, then the other input element by element from at_other. Both store
// `count` output elements from `out`.
template <class Runs>
void walk_runs(const CmsisDims& d1, const CmsisDims& d2, const CmsisDims& out, Runs& runs) {
  const auto [n1, h1, w1, c1] = d1;
  const auto [n2, h2, w2, c2] = d2;
  const int64_t flat1 = n1 * h1 * w1 * c1, flat2 = n2 * h2 * w2 * c2;
  if (d1 == d2) {
    runs.both(0, 0, 0, flat1);
    return;
  }
  if (flat1 == 1) {
    runs.scalar(0, 0, 0, 0, flat2);
    return;
  }
  if (flat2 == 1) {
    runs.scalar(1, 0, 0, 0, flat1);
    return;
  }
  // How far each pointer steps back after a pixel and after a row (CMSIS-NN's
  // width_diff and height_diff), and forward after a batch.
  const int64_t width_back1 = w1 >= w2 ? 0 : c1, width_back2 = w2 >= w1 ? 0 : c2;
  const int64_t row_step1 = h1 >= h2 ? width_back1 : -w1 * (c1 - width_back1);
  const int64_t row_step2 = h2 >= h1 ? width_back2 : -w2 * (c2 - width_back2);
  const int64_t batch_step1 = n1 >= n2 ? c1 * w1 * h1 : 0, batch_step2 = n2 >= n1 ? c2 * w2 * h2 : 0;
  int64_t batch1 = 0, batch2 = 0, o = 0;
  for (int64_t b = 0; b < out[0]; ++b) {
    int64_t p1 = batch1, p2 = batch2;
    if (h1 == h2 && w1 == w2 && c1 == c2) {
      runs.both(p1, p2, o, h1 * w1 * c1);
      o += h1 * w1 * c1;
    } else if (h1 * w1 * c1 == 1) {
      runs.scalar(0, p1, p2, o, h2 * w2 * c2);
      o += h2 * w2 * c2;
    } else if (h2 * w2 * c2 == 1) {
      runs.scalar(1, p2, p1, o, h1 * w1 * c1);
      o += h1 * w1 * c1;
    } else {
      const int64_t row1 = w1 * c1, row2 = w2 * c2;
      for (int64_t y = 0; y < out[1]; ++y) {
        if (w1 == w2 && c1 == c2) {
          runs.both(p1, p2, o, row1);
          o += row1;
          p1 += row1;
          p2 += row1;
        } else if (row1 == 1) {
          runs.scalar(0, p1, p2, o, row2);
          o += row2;
          p1 += 1;
          p2 += row2;
        } else if (row2 == 1) {
          runs.scalar(1, p2, p1, o, row1);
          o += row1;
          p2 += 1;
          p1 += row1;
        } else {
          for (int64_t x = 0; x < out[2]; ++x) {
            if (c1 == c2) {
              runs.both(p1, p2, o, c1);
              o += c1;
              p1 += c1;
              p2 += c1;
            } else if (c1 == 1) {
              runs.scalar(0, p1, p2, o, c2);
              o += c2;
              p1 += 1;
              p2 += c2;
            } else if (c2 == 1) {
              runs.scalar(1, p2, p1, o, c1);
              o += c1;
              p1 += c1;
              p2 += 1;
            }
            p1 -= width_back1;
            p2 -= width_back2;
          }
        }
        p1 += row_step1;
        p2 += row_step2;
      }
    }
    batch1 += batch_step1;
    batch2 += batch_step2;
  }
}

template <bool kMaximum>
int8_t pick(int8_t a, int8_t b) {
  return kMaximum ? std::max(a, b) : std::min(a, b);
}

template <bool kMaximum>
struct CmsisMaximumMinimumS8 {
  CmsisDims d1{}, d2{}, out{};

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const TensorRef* in[2] = {&io.input(0), &io.input(1)};
    const TensorRef& output = io.output(0);
    struct Runs {
      Memory& mem;
      const TensorRef* const* in;
      const TensorRef& output;
      void both(int64_t at1, int64_t at2, int64_t o, int64_t count) {
        for (int64_t k = 0; k < count; ++k) {
          const int8_t a = mem.template load<int8_t>(*in[0], at1 + k);
          const int8_t b = mem.template load<int8_t>(*in[1], at2 + k);
          mem.template store<int8_t>(output, o + k, pick<kMaximum>(a, b));
        }
      }
      void scalar(int which, int64_t at_scalar, int64_t at_other, int64_t o, int64_t count) {
        const int8_t s = mem.template load<int8_t>(*in[which], at_scalar);
        for (int64_t k = 0; k < count; ++k) {
          const int8_t v = mem.template load<int8_t>(*in[1 - which], at_other + k);
          mem.template store<int8_t>(output, o + k, pick<kMaximum>(s, v));
        }
      }
    } runs{mem, in, output};
    walk_runs(d1, d2, out, runs);
  }
};

// Checks the runs against TFLite's broadcast: the output stored once, front
// to back, each element from the input elements TFLite's reference reads.
class RunCheck {
 public:
  RunCheck(const BroadcastShape& shape, int64_t outputs) : shape_(shape), outputs_(outputs), cursor_(shape_) {}

  void both(int64_t at1, int64_t at2, int64_t o, int64_t count) {
    for (int64_t k = 0; k < count; ++k) expect(o + k, {at1 + k, at2 + k});
  }
  void scalar(int which, int64_t at_scalar, int64_t at_other, int64_t o, int64_t count) {
    for (int64_t k = 0; k < count; ++k) {
      std::array<int64_t, 2> at{};
      at[static_cast<size_t>(which)] = at_scalar;
      at[static_cast<size_t>(1 - which)] = at_other + k;
      expect(o + k, at);
    }
  }

  // The first output element CMSIS-NN gets wrong, or that it leaves unwritten.
  std::optional<std::string> mismatch() const {
    if (mismatch_) return mismatch_;
    if (next_ != outputs_) return fmt::format("stores {} of the {} output elements", next_, outputs_);
    return std::nullopt;
  }

 private:
  void expect(int64_t o, const std::array<int64_t, 2>& at) {
    if (mismatch_) return;
    if (o != next_ || o >= outputs_) {
      mismatch_ = fmt::format("stores output element {} where {} comes next", o, next_);
      return;
    }
    const std::array<int64_t, 2> tflite = {cursor_.first(), cursor_.second()};
    for (size_t i = 0; i < 2; ++i) {
      if (at[i] != tflite[i]) {
        mismatch_ = fmt::format("reads element {} of input {} for output element {}, which TFLite takes from "
                                "element {}",
                                at[i], i, o, tflite[i]);
        return;
      }
    }
    cursor_.advance();
    ++next_;
  }

  const BroadcastShape& shape_;
  int64_t outputs_;
  BroadcastCursor cursor_;
  int64_t next_ = 0;
  std::optional<std::string> mismatch_;
};

// The glue's cmsis_nn_dims: the shape extended to 4 dimensions with leading ones.
CmsisDims extended(const Shape& shape) {
  CmsisDims d = {1, 1, 1, 1};
  std::copy(shape.begin(), shape.end(), d.begin() + static_cast<std::ptrdiff_t>(kCmsisDims - shape.size()));
  return d;
}

template <bool kMaximum>
std::optional<PreparedKernel> prepare_cmsis_nn_maximum_minimum(const OpContext& ctx) {
  // The reference prepare makes TFLM's checks (operands, equal types, a broadcast); its kernel is not used.
  if (kMaximum) {
    prepare_maximum(ctx);
  } else {
    prepare_minimum(ctx);
  }
  if (ctx.output(0).type() != DataType::kInt8) return std::nullopt;
  const char* function = kMaximum ? "arm_maximum_s8" : "arm_minimum_s8";
  const Shape& a = ctx.input(0).shape();
  const Shape& b = ctx.input(1).shape();
  const Shape& out = ctx.output(0).shape();
  for (const Shape* s : {&a, &b, &out}) {
    ctx.require(s->size() <= kCmsisDims,
                fmt::format("TFLM's cmsis_nn glue extends shapes to 4 dimensions for {}; {} has {}", function,
                            shape_to_string(*s), s->size()));
  }
  CmsisMaximumMinimumS8<kMaximum> k;
  k.d1 = extended(a);
  k.d2 = extended(b);
  k.out = extended(out);

  const BroadcastShape broadcast(ctx, a, b, out);
  RunCheck check(broadcast, ctx.output(0).elements());
  walk_runs(k.d1, k.d2, k.out, check);
  if (const std::optional<std::string> wrong = check.mismatch()) {
    ctx.fail(fmt::format("{} mis-addresses the broadcast of {} against {}: it {}", function, shape_to_string(a),
                         shape_to_string(b), *wrong));
  }

  const int64_t flat1 = ctx.input(0).elements(), flat2 = ctx.input(1).elements();
  std::string path = "broadcast";
  if (k.d1 == k.d2) {
    path = "no broadcast";
  } else if (flat1 == 1 || flat2 == 1) {
    path = "scalar";
  }
  PreparedKernel prepared = PreparedKernel::of(k);
  prepared.implementation = fmt::format("{} ({})", function, path);
  return prepared;
}

}  // namespace

std::optional<PreparedKernel> prepare_cmsis_nn_maximum(const OpContext& ctx) {
  return prepare_cmsis_nn_maximum_minimum<true>(ctx);
}

std::optional<PreparedKernel> prepare_cmsis_nn_minimum(const OpContext& ctx) {
  return prepare_cmsis_nn_maximum_minimum<false>(ctx);
}

}  // namespace dmo

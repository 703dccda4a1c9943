// INT16 FULLY_CONNECTED in the cmsis-nn families, mirroring TFLM's
// kernels/cmsis_nn/fully_connected.cc (Prepare and EvalQuantizedInt16: zero
// points 0, arm_fully_connected_s16 with the per-tensor multiplier and the
// int64 bias) and CMSIS-NN (ARM-software/CMSIS-NN)
// Source/FullyConnectedFunctions/arm_fully_connected_s16.c V.2.0.1 and
// Source/NNSupportFunctions/arm_nn_vec_mat_mult_t_s16.c V.2.1.1, both at
// 46fee474: one arm_nn_vec_mat_mult_t_s16 per batch row.
//  - Portable C: one unit (weight row) at a time, the input row read in
//    order into a 64-bit sum, then the output stored.
//  - DSP: two units per step, the input row read 4 elements at a time
//    (two arm_nn_read_q15x2_ia) for both units' 32-bit SMLAD sums over the
//    first min(depth, 512) rounded down to a multiple of 4 columns, the
//    rest one element at a time into the 64-bit sums, then the two outputs
//    stored; an odd last unit alone in the same way.
// No scratch: arm_fully_connected_s16_get_buffer_size is 0 (also its _dsp
// variant, arm_fully_connected_get_buffer_sizes_s16.c at 6ebba504), so the
// glue requests none.
// Values: TFLM's reference values (int16_fully_connected_arithmetic.h)
// except where CMSIS-NN's arithmetic differs, which this kernel computes:
// the DSP path's 32-bit partial sums wrap (only 512 products of exactly
// (-32768) * (-128) reach 2^31), and arm_nn_requantize_s64 truncates the
// shifted product to 32 bits before its last rounding step where TFLite
// rounds in 64 bits (they differ only when the result leaves int32, which
// TFLite's requantization assumes never happens).
#include <algorithm>
#include <array>
#include <string>
#include <variant>

#include "../fully_connected/int16_fully_connected_arithmetic.h"
#include "cmsis_nn_kernels.h"
#include "requantize_s64.h"
#include "dmo/ops/kernels.h"

namespace dmo {
namespace {

// arm_nn_vec_mat_mult_t_s16's DSP path sums at most this many columns in 32 bits.
constexpr int32_t kMaxFastColumns = 512;

using fixed::wrapping_add;

// arm_nn_requantize_s64, then the activation clamp.
int16_t requantize_s64(int64_t sum, const Int16FullyConnectedArithmetic& a) {
  return static_cast<int16_t>(std::min(std::max(cmsis_requantize_s64(sum, a.multiplier), a.range.min), a.range.max));
}

struct CmsisFullyConnectedS16 {
  int64_t batches = 0;
  int32_t units = 0;
  int32_t depth = 0;
  bool dsp = false;
  Int16FullyConnectedArithmetic arithmetic;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const int32_t units_per_step = dsp ? 2 : 1;
    for (int64_t batch = 0; batch < batches; ++batch) {
      int32_t unit = 0;
      for (; unit + units_per_step <= units; unit += units_per_step) step(io, mem, batch, unit, units_per_step);
      if (unit < units) step(io, mem, batch, unit, 1);
    }
  }

  // `count` units from `first` against batch row `batch`: the row read once
  // (4 elements per step on the DSP path's 32-bit columns), then the outputs.
  template <class Memory>
  void step(const KernelIO& io, Memory& mem, int64_t batch, int32_t first, int32_t count) const {
    const TensorRef& input = io.input(0);
    const TensorRef& weights = io.input(1);
    const int64_t row = batch * depth;
    std::array<int32_t, 2> fast{};  // the DSP path's SMLAD sums
    std::array<int64_t, 2> wide{};
    auto weight = [&](int32_t k, int32_t col) {
      return int32_t{mem.template load<int8_t>(weights, int64_t{first + k} * depth + col)};
    };
    int32_t col = 0;
    if (dsp) {
      const int32_t fast_columns = std::min(depth, kMaxFastColumns) / 4 * 4;
      for (; col < fast_columns; col += 4) {
        std::array<int32_t, 4> word{};
        for (int32_t b = 0; b < 4; ++b) word[static_cast<size_t>(b)] = mem.template load<int16_t>(input, row + col + b);
        for (int32_t k = 0; k < count; ++k) {
          for (int32_t b = 0; b < 4; ++b) {
            fast[static_cast<size_t>(k)] =
                wrapping_add(fast[static_cast<size_t>(k)], word[static_cast<size_t>(b)] * weight(k, col + b));
          }
        }
      }
    }
    for (; col < depth; ++col) {
      const int32_t value = mem.template load<int16_t>(input, row + col);
      for (int32_t k = 0; k < count; ++k) wide[static_cast<size_t>(k)] += int64_t{value * weight(k, col)};
    }
    for (int32_t k = 0; k < count; ++k) {
      const int32_t unit = first + k;
      const int64_t bias = io.has_input(2) ? mem.template load<int64_t>(io.input(2), unit) : 0;
      const int64_t sum = int64_t{fast[static_cast<size_t>(k)]} + wide[static_cast<size_t>(k)] + bias;
      mem.template store<int16_t>(io.output(0), batch * units + unit, requantize_s64(sum, arithmetic));
    }
  }
};

}  // namespace

std::optional<PreparedKernel> prepare_cmsis_nn_fully_connected_s16(const OpContext& ctx) {
  // The reference prepare makes TFLM's checks (the glue's zero points of 0
  // among them); its kernel is not used.
  prepare_fully_connected(ctx);
  if (ctx.input(0).type() != DataType::kInt16) return std::nullopt;
  const auto& params = std::get<FullyConnectedParams>(ctx.op->params);
  CmsisFullyConnectedS16 k;
  k.units = ctx.input(1).dim(0);
  k.depth = ctx.input(1).dim(1);
  k.batches = ctx.input(0).elements() / k.depth;
  k.dsp = ctx.family == KernelFamily::kCmsisNnDsp;
  k.arithmetic = int16_fully_connected_arithmetic(ctx, params.activation);
  const bool dsp = k.dsp;
  PreparedKernel prepared = PreparedKernel::of(std::move(k));
  prepared.implementation = std::string("arm_fully_connected_s16") + (dsp ? " (DSP)" : " (portable C)");
  return prepared;
}

}  // namespace dmo

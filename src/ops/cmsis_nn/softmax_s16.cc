// INT16 -> INT16 SOFTMAX in the cmsis-nn families, mirroring TFLM's
// kernels/cmsis_nn/softmax.cc (SoftmaxEval, kTfLiteInt16: arm_softmax_s16
// with the input multiplier and the exp and 1 / (1 + x) tables TFLM's
// softmax prepare fills, int16_softmax_tables.h) and CMSIS-NN's
// Source/SoftmaxFunctions/arm_softmax_s16.c V.2.1.0 (5 January 2023; read
// in the FabKlein/CMSIS-NN copy at b8dbf389, the same file as upstream's
// release). One C path, no DSP variant, no scratch buffer: per row, the max
// from element 0 on; then per element exp(x - max) stored in the output as
// a cache and read back into the sum; then each cached element read and
// overwritten with its share. The order of loads and stores is that of
// TFLM's reference_ops::SoftmaxInt16.
// Values: the reference's except where CMSIS-NN's arithmetic differs,
// which this kernel computes: it normalizes the sum in 32 bits, so a sum
// whose top 18 significant bits are all ones wraps where TFLite's 64-bit
// sum does not, and it neither saturates the recentred sum nor clamps the
// result to [0, 32767] (it truncates to int16); it rounds the product
// with a shift by one less and a final (x + 1) >> 1, which rounds alike.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <variant>

#include "../elementwise.h"
#include "../softmax/int16_softmax_tables.h"
#include "dmo/ops/eval/fixed_point_math.h"
#include "cmsis_nn_kernels.h"
#include "dmo/ops/kernels.h"

namespace dmo {
namespace {

using fixed::wrapping_add;

struct CmsisSoftmaxS16 {
  int64_t rows = 0, row_size = 0;
  QuantizedMultiplier input_multiplier;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const TensorRef& in = io.input(0);
    const TensorRef& out = io.output(0);
    const Int16Table& one_by_one = int16_softmax_one_over_one_plus_x_table();
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t row = r * row_size;
      int16_t max = mem.template load<int16_t>(in, row);
      for (int64_t c = 1; c < row_size; ++c) max = std::max(max, mem.template load<int16_t>(in, row + c));

      int32_t sum = 0;
      for (int64_t c = 0; c < row_size; ++c) {
        const int32_t diff = mem.template load<int16_t>(in, row + c) - max;
        mem.template store<int16_t>(out, row + c, int16_softmax_exp(diff, input_multiplier));
        sum += mem.template load<int16_t>(out, row + c);
      }

      const int headroom = std::countl_zero(static_cast<uint32_t>(sum));
      // The shifted sum in 32 bits (the shift keeps it below 2^31; the
      // rounding term may not), then truncated to int16 after recentring.
      const int32_t shifted_sum =
          wrapping_add(static_cast<int32_t>(static_cast<uint32_t>(sum) << (headroom - 1)), 1 << 13) >> 14;
      const auto recentred = static_cast<int16_t>(shifted_sum - 98304);
      const int32_t one_by_one_result = int16_table_lookup(recentred, one_by_one);

      // Below 0 only for a sum under 2, which only the address-only
      // policy's zero loads give (a real row holds its maximum's exp(0)).
      const int right_shift = std::max(30 - headroom, 0);
      for (int64_t c = 0; c < row_size; ++c) {
        const int32_t scaled = (mem.template load<int16_t>(out, row + c) * one_by_one_result) >> right_shift;
        mem.template store<int16_t>(out, row + c, static_cast<int16_t>(wrapping_add(scaled, 1) >> 1));
      }
    }
  }
};

}  // namespace

std::optional<PreparedKernel> prepare_cmsis_nn_softmax_s16(const OpContext& ctx) {
  // The reference prepare makes TFLM's checks (output zero point 0 and scale
  // 1/32768, the row bound); its kernel is not used.
  prepare_softmax(ctx);
  const TensorRef& in = ctx.input(0);
  if (in.type() != DataType::kInt16) return std::nullopt;
  const auto* params = std::get_if<SoftmaxParams>(&ctx.op->params);
  CmsisSoftmaxS16 k;
  k.row_size = in.dim(in.rank() - 1);
  k.rows = k.row_size == 0 ? 0 : in.elements() / k.row_size;
  k.input_multiplier =
      int16_softmax_input_multiplier(affine_quantization(ctx, in, "input").scale, params ? params->beta : 1.0f);
  PreparedKernel prepared = PreparedKernel::of(std::move(k));
  prepared.implementation = "arm_softmax_s16";
  return prepared;
}

}  // namespace dmo

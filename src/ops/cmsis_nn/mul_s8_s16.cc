// MUL in the cmsis-nn families, mirroring TFLM's kernels/cmsis_nn/mul.cc
// (EvalQuantized): INT8 and INT16 inputs of the same shape go to CMSIS-NN's
// arm_elementwise_mul_s8 / arm_elementwise_mul_s16; a broadcast, FLOAT32,
// INT32 and UINT8 run TFLM's reference kernels, as the glue does.
// ARM-software/CMSIS-NN Source/BasicMathFunctions/arm_elementwise_mul_s8.c
// at 006cac92: portable C element by element; DSP 4 elements per step (a
// word of each input, one word written), the remainder element by element.
// arm_elementwise_mul_s16.c at 12b2a39a: without MVE, 2 elements per step
// (arm_nn_read_q15x2_ia of each input, arm_nn_write_q15x2_ia), an odd last
// element alone, in both families.
// Values are TFLM's: (a - za) * (b - zb) rescaled by
// input1_scale * input2_scale / output_scale, output offset, clamp.
#include "../elementwise.h"
#include "cmsis_nn_kernels.h"
#include "dmo/ops/activation_range.h"
#include "dmo/ops/fixed_point.h"
#include "dmo/ops/kernels.h"
#include "../mul/mul_requantization.h"
#include "elementwise_words.h"

namespace dmo {

std::optional<PreparedKernel> prepare_cmsis_nn_mul(const OpContext& ctx) {
  // The reference prepare makes TFLM's checks; its kernel is not used.
  prepare_mul(ctx);
  const DataType type = ctx.input(0).type();
  if ((type != DataType::kInt8 && type != DataType::kInt16) || inputs_broadcast(ctx)) return std::nullopt;
  const bool dsp = ctx.family == KernelFamily::kCmsisNnDsp;
  const MulRequantization q = mul_requantization(ctx);
  if (type == DataType::kInt8) {
    return cmsis_elementwise_kernel<int8_t>(ctx, dsp ? 4 : 1,
                                            dsp ? "arm_elementwise_mul_s8 (DSP)" : "arm_elementwise_mul_s8 (portable C)",
                                            [q](int8_t a, int8_t b) { return static_cast<int8_t>(q.multiply(a, b)); });
  }
  return cmsis_elementwise_kernel<int16_t>(ctx, 2, "arm_elementwise_mul_s16",
                                           [q](int16_t a, int16_t b) { return static_cast<int16_t>(q.multiply(a, b)); });
}

}  // namespace dmo

// ADD in the cmsis-nn families, mirroring TFLM's kernels/cmsis_nn/add.cc
// (EvalAddQuantized): INT8 and INT16 inputs of the same shape go to
// CMSIS-NN's arm_elementwise_add_s8 / arm_elementwise_add_s16; a broadcast,
// FLOAT32, INT32 and UINT8 run TFLM's reference kernels, as the glue does.
// arm_elementwise_add_s8 (ARM-software/CMSIS-NN Source/BasicMathFunctions/
// arm_elementwise_add_s8.c at 46fee474): portable C element by element; DSP
// 4 elements per step (read_and_pad_reordered of each input's word, one
// word written), the remainder element by element. arm_elementwise_add_s16
// (arm_elementwise_add_s16.c V.2.1.0): without MVE, 2 elements per step
// (arm_nn_read_q15x2_ia of each input, one word written), an odd last
// element alone, in both families; it ignores the zero points, so INT16
// operands must have zero point 0 (as TFLite requires of INT16 ADD).
// Values are TFLM's (add_common: inputs shifted left 20 bits, 15 for INT16,
// rescaled, added, rescaled to the output): the same multipliers.
#include "../add_sub_requantization.h"
#include "../elementwise.h"
#include "cmsis_nn_kernels.h"
#include "dmo/ops/kernels.h"
#include "elementwise_words.h"

namespace dmo {

std::optional<PreparedKernel> prepare_cmsis_nn_add(const OpContext& ctx) {
  // The reference prepare makes TFLM's checks; its kernel is not used.
  prepare_add(ctx);
  const DataType type = ctx.output(0).type();
  if ((type != DataType::kInt8 && type != DataType::kInt16) || inputs_broadcast(ctx)) return std::nullopt;
  if (ctx.input(0).type() != type || ctx.input(1).type() != type) return std::nullopt;
  const bool dsp = ctx.family == KernelFamily::kCmsisNnDsp;
  const AddSubRequantization q = add_sub_requantization(ctx, elementwise_activation(ctx), AddSubScaleArithmetic::kDouble);
  if (type == DataType::kInt8) {
    return cmsis_elementwise_kernel<int8_t>(ctx, dsp ? 4 : 1,
                                            dsp ? "arm_elementwise_add_s8 (DSP)" : "arm_elementwise_add_s8 (portable C)",
                                            [q](int8_t a, int8_t b) { return static_cast<int8_t>(q.add(a, b)); });
  }
  ctx.require(q.input1_offset == 0 && q.input2_offset == 0 && q.output_offset == 0,
              "INT16 operands must have zero point 0 (arm_elementwise_add_s16 ignores zero points)");
  return cmsis_elementwise_kernel<int16_t>(ctx, 2, "arm_elementwise_add_s16",
                                           [q](int16_t a, int16_t b) { return static_cast<int16_t>(q.add(a, b)); });
}

}  // namespace dmo

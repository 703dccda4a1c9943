#include "int16_fully_connected_arithmetic.h"

#include <fmt/format.h>

#include "../conv2d/conv_quantization.h"

namespace dmo {

Int16FullyConnectedArithmetic int16_fully_connected_arithmetic(const OpContext& ctx, Activation activation) {
  // The per-tensor multiplier of GetQuantizedConvolutionMultipler; TFLM
  // refuses per-channel INT16 weights.
  const ConvRequantization q = per_tensor_requantization(ctx, activation, /*channels=*/1);
  // int16 activations and int8 weights are symmetric: TFLM's int16 kernel
  // ignores the activation zero points and CMSIS-NN the weights', so only
  // zero points of 0 give one answer.
  ctx.require(q.input_offset == 0 && q.output_offset == 0 && q.filter_offset == 0,
              fmt::format("INT16 input and output and INT8 weights must have zero point 0, have {}, {} and {}",
                          -q.input_offset, q.output_offset, -q.filter_offset));
  Int16FullyConnectedArithmetic a;
  a.multiplier = q.multipliers.front();
  // The 64-bit MultiplyByQuantizedMultiplier takes shifts below 8.
  ctx.require(a.multiplier.shift < 8, "effective output scale is 128 or more, beyond the INT16 requantization");
  a.range = q.range;
  return a;
}

}  // namespace dmo

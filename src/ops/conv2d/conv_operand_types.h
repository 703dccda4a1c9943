// Element types the conv-like kernels (CONV_2D, DEPTHWISE_CONV_2D,
// FULLY_CONNECTED) run: float32 throughout, or int8 / uint8 activations and
// weights of the same type with int32 biases. CONV_2D also runs int16
// activations with int8 filters ("16x8") and int32 or int64 biases.
#pragma once

#include "dmo/ops/op_context.h"

namespace dmo {

// Inputs (input, `weights`, optional bias) and one output are given.
// `weights` names input 1 in messages: "filter" or "weights".
void require_conv_operand_counts(const OpContext& ctx, const char* weights);

// Fails naming the first operand whose type is not one of these; input 2
// (the bias) may be omitted.
void require_conv_operand_types(const OpContext& ctx);

// CONV_2D's types: those above, or int16 input and output with an int8
// filter and an int32 or int64 bias, as TFLM's conv.cc ConvEval takes them.
void require_conv2d_operand_types(const OpContext& ctx);

}  // namespace dmo

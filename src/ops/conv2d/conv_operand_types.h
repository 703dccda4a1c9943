// Element types the conv-like kernels (CONV_2D, DEPTHWISE_CONV_2D,
// FULLY_CONNECTED) run: float32 throughout, or int8 / uint8 activations and
// weights of the same type with int32 biases.
#pragma once

#include "dmo/ops/op_context.h"

namespace dmo {

// Inputs (input, `weights`, optional bias) and one output are given.
// `weights` names input 1 in messages: "filter" or "weights".
void require_conv_operand_counts(const OpContext& ctx, const char* weights);

// Fails naming the first operand whose type is not one of these; input 2
// (the bias) may be omitted.
void require_conv_operand_types(const OpContext& ctx);

}  // namespace dmo

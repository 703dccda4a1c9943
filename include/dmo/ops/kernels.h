// Every kernel dmo has: one loop nest each, templated over a memory policy
// (see runtime/memory_policy.h), in the loop order of TFLite's reference
// kernels. Defined and instantiated in src/ops/<op>/.
#pragma once

#include "dmo/ops/op_context.h"

namespace dmo {

// Windowed and matrix ops.
template <class Memory> void run_conv2d(const OpContext& ctx, Memory& mem);
template <class Memory> void run_depthwise_conv2d(const OpContext& ctx, Memory& mem);
template <class Memory> void run_fully_connected(const OpContext& ctx, Memory& mem);
// Element-wise, activation, pooling and softmax ops.
template <class Memory> void run_add(const OpContext& ctx, Memory& mem);
template <class Memory> void run_sub(const OpContext& ctx, Memory& mem);
template <class Memory> void run_mul(const OpContext& ctx, Memory& mem);
template <class Memory> void run_relu(const OpContext& ctx, Memory& mem);
template <class Memory> void run_relu6(const OpContext& ctx, Memory& mem);
template <class Memory> void run_relu_n1_to_1(const OpContext& ctx, Memory& mem);
template <class Memory> void run_logistic(const OpContext& ctx, Memory& mem);
template <class Memory> void run_tanh(const OpContext& ctx, Memory& mem);
template <class Memory> void run_hard_swish(const OpContext& ctx, Memory& mem);
template <class Memory> void run_average_pool_2d(const OpContext& ctx, Memory& mem);
template <class Memory> void run_max_pool_2d(const OpContext& ctx, Memory& mem);
template <class Memory> void run_softmax(const OpContext& ctx, Memory& mem);
template <class Memory> void run_quantize(const OpContext& ctx, Memory& mem);
template <class Memory> void run_dequantize(const OpContext& ctx, Memory& mem);
// Shape, copy and reduction ops.
template <class Memory> void run_reshape(const OpContext& ctx, Memory& mem);
template <class Memory> void run_squeeze(const OpContext& ctx, Memory& mem);
template <class Memory> void run_concatenation(const OpContext& ctx, Memory& mem);
template <class Memory> void run_split(const OpContext& ctx, Memory& mem);
template <class Memory> void run_pad(const OpContext& ctx, Memory& mem);
template <class Memory> void run_mean(const OpContext& ctx, Memory& mem);
template <class Memory> void run_strided_slice(const OpContext& ctx, Memory& mem);
template <class Memory> void run_svdf(const OpContext& ctx, Memory& mem);

// Dispatch on the op kind; unsupported ops and types fail naming op and kind.
template <class Memory>
void run_kernel(const OpContext& ctx, Memory& memory);

}  // namespace dmo

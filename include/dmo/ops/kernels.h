// Every kernel dmo has, as its prepare step (ops/prepared_kernel.h), whose
// result evaluates one loop nest templated over a memory policy
// (ops/memory_policy.h) in the loop order of the TFLM reference kernel it
// names. Defined in src/ops/<op>/.
#pragma once

#include "dmo/ops/op_context.h"
#include "dmo/ops/prepared_kernel.h"

namespace dmo {

// Windowed ops: eval honours output regions and the descending walk.
PreparedKernel prepare_conv2d(const OpContext& ctx);
PreparedKernel prepare_depthwise_conv2d(const OpContext& ctx);
PreparedKernel prepare_average_pool_2d(const OpContext& ctx);
PreparedKernel prepare_max_pool_2d(const OpContext& ctx);

// Kernels that walk their output ascending in flat order (FULLY_CONNECTED
// and SOFTMAX row by row, the binary ops with their inputs broadcast).
PreparedKernel prepare_fully_connected(const OpContext& ctx);
PreparedKernel prepare_add(const OpContext& ctx);
PreparedKernel prepare_sub(const OpContext& ctx);
PreparedKernel prepare_mul(const OpContext& ctx);
PreparedKernel prepare_softmax(const OpContext& ctx);
PreparedKernel prepare_relu(const OpContext& ctx);
PreparedKernel prepare_relu6(const OpContext& ctx);
PreparedKernel prepare_relu_n1_to_1(const OpContext& ctx);
PreparedKernel prepare_logistic(const OpContext& ctx);
PreparedKernel prepare_tanh(const OpContext& ctx);
PreparedKernel prepare_hard_swish(const OpContext& ctx);
PreparedKernel prepare_quantize(const OpContext& ctx);
PreparedKernel prepare_dequantize(const OpContext& ctx);

// Shape and copy ops, MEAN and SVDF: eval walks the whole output ascending.
PreparedKernel prepare_reshape(const OpContext& ctx);
PreparedKernel prepare_squeeze(const OpContext& ctx);
PreparedKernel prepare_concatenation(const OpContext& ctx);
PreparedKernel prepare_split(const OpContext& ctx);
PreparedKernel prepare_pad(const OpContext& ctx);  // PAD and PADV2
PreparedKernel prepare_mean(const OpContext& ctx);
PreparedKernel prepare_strided_slice(const OpContext& ctx);
PreparedKernel prepare_svdf(const OpContext& ctx);

// Matrix and resampling ops: eval walks the whole output ascending.
PreparedKernel prepare_batch_matmul(const OpContext& ctx);
PreparedKernel prepare_resize_bilinear(const OpContext& ctx);
PreparedKernel prepare_resize_nearest_neighbor(const OpContext& ctx);
PreparedKernel prepare_transpose_conv(const OpContext& ctx);

// Dispatch on the op kind: the op's prepared kernel. Unsupported ops and
// types fail naming the op and its kind.
PreparedKernel prepare_kernel(const OpContext& ctx);

// Prepares and evaluates the whole output in one call, walking as
// ctx.descending says (tests and one-off analyses).
template <class Memory>
void run_kernel(const OpContext& ctx, Memory& memory) {
  KernelIO io{ctx.inputs, ctx.outputs, ctx.descending, {}};
  prepare_kernel(ctx).eval(io, memory);
}

}  // namespace dmo

// Every kernel dmo has, as its prepare step (ops/prepared_kernel.h): one
// loop nest each, templated over a memory policy (ops/memory_policy.h), in
// the loop order of TFLM's reference kernels. Defined in src/ops/<op>/.
#pragma once

#include "dmo/ops/op_context.h"
#include "dmo/ops/prepared_kernel.h"

namespace dmo {

// Windowed ops: eval honours output regions and the descending walk.
PreparedKernel prepare_conv2d(const OpContext& ctx);
PreparedKernel prepare_depthwise_conv2d(const OpContext& ctx);
PreparedKernel prepare_average_pool_2d(const OpContext& ctx);
PreparedKernel prepare_max_pool_2d(const OpContext& ctx);

// Shape and copy ops, MEAN and SVDF: eval walks the whole output ascending.
PreparedKernel prepare_reshape(const OpContext& ctx);
PreparedKernel prepare_squeeze(const OpContext& ctx);
PreparedKernel prepare_concatenation(const OpContext& ctx);
PreparedKernel prepare_split(const OpContext& ctx);
PreparedKernel prepare_pad(const OpContext& ctx);  // PAD and PADV2
PreparedKernel prepare_mean(const OpContext& ctx);
PreparedKernel prepare_strided_slice(const OpContext& ctx);
PreparedKernel prepare_svdf(const OpContext& ctx);

// Kernels still in one step (checks and loops together), run through an
// adapter by prepare_kernel until they are split.
template <class Memory> void run_fully_connected(const OpContext& ctx, Memory& mem);
template <class Memory> void run_add(const OpContext& ctx, Memory& mem);
template <class Memory> void run_sub(const OpContext& ctx, Memory& mem);
template <class Memory> void run_mul(const OpContext& ctx, Memory& mem);
template <class Memory> void run_relu(const OpContext& ctx, Memory& mem);
template <class Memory> void run_relu6(const OpContext& ctx, Memory& mem);
template <class Memory> void run_relu_n1_to_1(const OpContext& ctx, Memory& mem);
template <class Memory> void run_logistic(const OpContext& ctx, Memory& mem);
template <class Memory> void run_tanh(const OpContext& ctx, Memory& mem);
template <class Memory> void run_hard_swish(const OpContext& ctx, Memory& mem);
template <class Memory> void run_softmax(const OpContext& ctx, Memory& mem);
template <class Memory> void run_quantize(const OpContext& ctx, Memory& mem);
template <class Memory> void run_dequantize(const OpContext& ctx, Memory& mem);

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

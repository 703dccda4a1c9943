// Maps an op kind to its kernel. Each kernel checks its own shapes and
// types and fails naming the op when it cannot run them.
#include <fmt/format.h>

#include "dmo/ops/kernel_instantiation.h"
#include "dmo/ops/kernels.h"
#include "dmo/ops/walk_order.h"

namespace dmo {

template <class Memory>
void run_kernel(const OpContext& ctx, Memory& memory) {
  if (ctx.descending && !kernel_walks_descending(static_cast<OpKind>(ctx.op->builtin_code))) {
    ctx.fail("this kernel walks its output ascending only; the plan asks for descending");
  }
  switch (static_cast<OpKind>(ctx.op->builtin_code)) {
    // Windowed and matrix ops.
    case OpKind::kConv2D: return run_conv2d(ctx, memory);
    case OpKind::kDepthwiseConv2D: return run_depthwise_conv2d(ctx, memory);
    case OpKind::kFullyConnected: return run_fully_connected(ctx, memory);
    // Element-wise, activation, pooling and softmax ops.
    case OpKind::kAdd: return run_add(ctx, memory);
    case OpKind::kSub: return run_sub(ctx, memory);
    case OpKind::kMul: return run_mul(ctx, memory);
    case OpKind::kRelu: return run_relu(ctx, memory);
    case OpKind::kRelu6: return run_relu6(ctx, memory);
    case OpKind::kReluN1To1: return run_relu_n1_to_1(ctx, memory);
    case OpKind::kLogistic: return run_logistic(ctx, memory);
    case OpKind::kTanh: return run_tanh(ctx, memory);
    case OpKind::kHardSwish: return run_hard_swish(ctx, memory);
    case OpKind::kAveragePool2D: return run_average_pool_2d(ctx, memory);
    case OpKind::kMaxPool2D: return run_max_pool_2d(ctx, memory);
    case OpKind::kSoftmax: return run_softmax(ctx, memory);
    case OpKind::kQuantize: return run_quantize(ctx, memory);
    case OpKind::kDequantize: return run_dequantize(ctx, memory);
    // Shape, copy and reduction ops.
    case OpKind::kReshape: return run_reshape(ctx, memory);
    case OpKind::kSqueeze: return run_squeeze(ctx, memory);
    case OpKind::kConcatenation: return run_concatenation(ctx, memory);
    case OpKind::kSplit: return run_split(ctx, memory);
    case OpKind::kPad: return run_pad(ctx, memory);
    case OpKind::kPadV2: return run_pad(ctx, memory);
    case OpKind::kMean: return run_mean(ctx, memory);
    case OpKind::kStridedSlice: return run_strided_slice(ctx, memory);
    case OpKind::kSvdf: return run_svdf(ctx, memory);
    default:
      break;
  }
  ctx.fail(fmt::format("dmo has no kernel for this op (builtin code {})", ctx.op->builtin_code));
}

template void run_kernel<DirectMemory>(const OpContext&, DirectMemory&);
template void run_kernel<AddressMemory>(const OpContext&, AddressMemory&);
template void run_kernel<CheckingMemory>(const OpContext&, CheckingMemory&);

}  // namespace dmo

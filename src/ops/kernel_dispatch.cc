// Maps an op kind to its prepared kernel. Each kernel's prepare checks its
// own shapes and types and fails naming the op when it cannot run them.
#include <fmt/format.h>

#include "dmo/ops/kernels.h"
#include "dmo/ops/walk_order.h"

namespace dmo {

PreparedKernel prepare_kernel(const OpContext& ctx) {
  const auto kind = static_cast<OpKind>(ctx.op->builtin_code);
  if (ctx.descending && !kernel_walks_descending(kind)) {
    ctx.fail("this kernel walks its output ascending only; the plan asks for descending");
  }
  switch (kind) {
    // Windowed ops: output regions and both walks.
    case OpKind::kConv2D: return prepare_conv2d(ctx);
    case OpKind::kDepthwiseConv2D: return prepare_depthwise_conv2d(ctx);
    case OpKind::kAveragePool2D: return prepare_average_pool_2d(ctx);
    case OpKind::kMaxPool2D: return prepare_max_pool_2d(ctx);
    // Matrix, element-wise, activation and softmax ops.
    case OpKind::kFullyConnected: return prepare_fully_connected(ctx);
    case OpKind::kAdd: return prepare_add(ctx);
    case OpKind::kSub: return prepare_sub(ctx);
    case OpKind::kMul: return prepare_mul(ctx);
    case OpKind::kSoftmax: return prepare_softmax(ctx);
    case OpKind::kRelu: return prepare_relu(ctx);
    case OpKind::kRelu6: return prepare_relu6(ctx);
    case OpKind::kReluN1To1: return prepare_relu_n1_to_1(ctx);
    case OpKind::kLogistic: return prepare_logistic(ctx);
    case OpKind::kTanh: return prepare_tanh(ctx);
    case OpKind::kHardSwish: return prepare_hard_swish(ctx);
    case OpKind::kQuantize: return prepare_quantize(ctx);
    case OpKind::kDequantize: return prepare_dequantize(ctx);
    // Shape, copy and reduction ops.
    case OpKind::kReshape: return prepare_reshape(ctx);
    case OpKind::kSqueeze: return prepare_squeeze(ctx);
    case OpKind::kConcatenation: return prepare_concatenation(ctx);
    case OpKind::kSplit: return prepare_split(ctx);
    case OpKind::kPad: return prepare_pad(ctx);
    case OpKind::kPadV2: return prepare_pad(ctx);
    case OpKind::kMean: return prepare_mean(ctx);
    case OpKind::kStridedSlice: return prepare_strided_slice(ctx);
    case OpKind::kSvdf: return prepare_svdf(ctx);
    // Matrix and resampling ops.
    case OpKind::kBatchMatMul: return prepare_batch_matmul(ctx);
    case OpKind::kResizeBilinear: return prepare_resize_bilinear(ctx);
    case OpKind::kResizeNearestNeighbor: return prepare_resize_nearest_neighbor(ctx);
    case OpKind::kTransposeConv: return prepare_transpose_conv(ctx);
    default: break;
  }
  ctx.fail(fmt::format("dmo has no kernel for this op (builtin code {})", ctx.op->builtin_code));
}

}  // namespace dmo

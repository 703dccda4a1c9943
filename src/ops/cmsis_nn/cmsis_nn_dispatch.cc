// Maps an op kind to the CMSIS-NN kernel TFLM's cmsis_nn glue registers for
// it; ops the glue does not cover run TFLM's reference kernels.
#include "cmsis_nn_kernels.h"

namespace dmo {

std::optional<PreparedKernel> prepare_cmsis_nn_kernel(const OpContext& ctx) {
  switch (static_cast<OpKind>(ctx.op->builtin_code)) {
    case OpKind::kConv2D: return prepare_cmsis_nn_conv2d(ctx);
    // Sequence and matrix ops.
    case OpKind::kSvdf: return prepare_cmsis_nn_svdf(ctx);
    case OpKind::kUnidirectionalSequenceLstm: return prepare_cmsis_nn_unidirectional_sequence_lstm(ctx);
    case OpKind::kBatchMatMul: return prepare_cmsis_nn_batch_matmul(ctx);
    // FULLY_CONNECTED, the pools, ADD, MUL and SOFTMAX.
    case OpKind::kFullyConnected: return prepare_cmsis_nn_fully_connected(ctx);
    case OpKind::kAveragePool2D: return prepare_cmsis_nn_average_pool_2d(ctx);
    case OpKind::kMaxPool2D: return prepare_cmsis_nn_max_pool_2d(ctx);
    case OpKind::kAdd: return prepare_cmsis_nn_add(ctx);
    case OpKind::kMul: return prepare_cmsis_nn_mul(ctx);
    case OpKind::kSoftmax: return prepare_cmsis_nn_softmax(ctx);
    case OpKind::kDepthwiseConv2D: return prepare_cmsis_nn_depthwise_conv2d(ctx);
    // PAD, TRANSPOSE, MAXIMUM and MINIMUM.
    case OpKind::kPad: return prepare_cmsis_nn_pad(ctx);
    case OpKind::kPadV2: return prepare_cmsis_nn_pad(ctx);
    case OpKind::kTranspose: return prepare_cmsis_nn_transpose(ctx);
    case OpKind::kMaximum: return prepare_cmsis_nn_maximum(ctx);
    case OpKind::kMinimum: return prepare_cmsis_nn_minimum(ctx);
    case OpKind::kTransposeConv: return prepare_cmsis_nn_transpose_conv(ctx);
    default: return std::nullopt;
  }
}

}  // namespace dmo

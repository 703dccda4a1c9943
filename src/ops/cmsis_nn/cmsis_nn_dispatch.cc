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
    default: return std::nullopt;
  }
}

}  // namespace dmo

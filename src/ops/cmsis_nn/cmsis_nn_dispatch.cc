// Maps an op kind to the CMSIS-NN kernel TFLM's cmsis_nn glue registers for
// it; ops the glue does not cover run TFLM's reference kernels.
#include "cmsis_nn_kernels.h"

namespace dmo {

std::optional<PreparedKernel> prepare_cmsis_nn_kernel(const OpContext& ctx) {
  switch (static_cast<OpKind>(ctx.op->builtin_code)) {
    case OpKind::kDepthwiseConv2D: return prepare_cmsis_nn_depthwise_conv2d(ctx);
    default: return std::nullopt;
  }
}

}  // namespace dmo

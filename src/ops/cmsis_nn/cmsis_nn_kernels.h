// The cmsis-nn and cmsis-nn-dsp kernel families (ops/kernel_family.h): per
// op, the CMSIS-NN function TFLM's kernels/cmsis_nn glue selects for the
// op's types, shapes and options, as a loop nest over dmo's memory policies
// in that function's access order (ctx.family says portable C or DSP path),
// computing TFLM's values. Each prepare returns nothing where the glue
// falls back to TFLM's reference kernel (float, unsupported types), and
// otherwise a kernel with `implementation` (the CMSIS-NN function and path)
// and `scratch` (the buffers the glue requests) set.
#pragma once

#include <optional>

#include "dmo/ops/op_context.h"
#include "dmo/ops/prepared_kernel.h"

namespace dmo {

// Dispatch by op kind: the CMSIS-NN kernel for ctx.family, or nothing.
std::optional<PreparedKernel> prepare_cmsis_nn_kernel(const OpContext& ctx);

// CONV_2D: arm_convolve_wrapper_s8's kernels for int8 (conv_s8.cc).
std::optional<PreparedKernel> prepare_cmsis_nn_conv2d(const OpContext& ctx);
// Sequence and matrix ops: SVDF, UNIDIRECTIONAL_SEQUENCE_LSTM, BATCH_MATMUL.
std::optional<PreparedKernel> prepare_cmsis_nn_svdf(const OpContext& ctx);
std::optional<PreparedKernel> prepare_cmsis_nn_unidirectional_sequence_lstm(const OpContext& ctx);
std::optional<PreparedKernel> prepare_cmsis_nn_batch_matmul(const OpContext& ctx);
// FULLY_CONNECTED, the pools, ADD, MUL and SOFTMAX.
std::optional<PreparedKernel> prepare_cmsis_nn_fully_connected(const OpContext& ctx);
std::optional<PreparedKernel> prepare_cmsis_nn_average_pool_2d(const OpContext& ctx);
std::optional<PreparedKernel> prepare_cmsis_nn_max_pool_2d(const OpContext& ctx);
std::optional<PreparedKernel> prepare_cmsis_nn_add(const OpContext& ctx);
std::optional<PreparedKernel> prepare_cmsis_nn_mul(const OpContext& ctx);
std::optional<PreparedKernel> prepare_cmsis_nn_softmax(const OpContext& ctx);
// DEPTHWISE_CONV_2D: arm_depthwise_conv_wrapper_s8's choice for int8.
std::optional<PreparedKernel> prepare_cmsis_nn_depthwise_conv2d(const OpContext& ctx);
// CONV_2D with int16 activations: arm_convolve_wrapper_s16's kernel
// (conv_s16.cc); prepare_cmsis_nn_conv2d routes int16 ops here after the
// reference prepare's checks.
std::optional<PreparedKernel> prepare_cmsis_nn_conv2d_s16(const OpContext& ctx);
// INT16 FULLY_CONNECTED (arm_fully_connected_s16) and INT16 SOFTMAX
// (arm_softmax_s16), reached through the FULLY_CONNECTED and SOFTMAX prepares.
std::optional<PreparedKernel> prepare_cmsis_nn_fully_connected_s16(const OpContext& ctx);
std::optional<PreparedKernel> prepare_cmsis_nn_softmax_s16(const OpContext& ctx);
// PAD / PADV2, TRANSPOSE, MAXIMUM and MINIMUM: arm_pad_s8, arm_transpose_s8,
// arm_maximum_s8 and arm_minimum_s8 for int8.
std::optional<PreparedKernel> prepare_cmsis_nn_pad(const OpContext& ctx);
std::optional<PreparedKernel> prepare_cmsis_nn_transpose(const OpContext& ctx);
std::optional<PreparedKernel> prepare_cmsis_nn_maximum(const OpContext& ctx);
std::optional<PreparedKernel> prepare_cmsis_nn_minimum(const OpContext& ctx);
// TRANSPOSE_CONV: arm_transpose_conv_wrapper_s8's choice for int8.
std::optional<PreparedKernel> prepare_cmsis_nn_transpose_conv(const OpContext& ctx);

}  // namespace dmo

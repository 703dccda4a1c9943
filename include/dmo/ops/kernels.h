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
// CAST, the element-wise math ops and SELECT_V2: element i of each input
// (broadcast ones following with stride 0) loaded right before output i.
PreparedKernel prepare_cast(const OpContext& ctx);
PreparedKernel prepare_div(const OpContext& ctx);
PreparedKernel prepare_maximum(const OpContext& ctx);
PreparedKernel prepare_minimum(const OpContext& ctx);
PreparedKernel prepare_leaky_relu(const OpContext& ctx);
PreparedKernel prepare_sqrt(const OpContext& ctx);
PreparedKernel prepare_rsqrt(const OpContext& ctx);
PreparedKernel prepare_exp(const OpContext& ctx);
PreparedKernel prepare_log(const OpContext& ctx);
PreparedKernel prepare_prelu(const OpContext& ctx);
PreparedKernel prepare_pow(const OpContext& ctx);
PreparedKernel prepare_squared_difference(const OpContext& ctx);
PreparedKernel prepare_floor_div(const OpContext& ctx);
PreparedKernel prepare_floor_mod(const OpContext& ctx);
PreparedKernel prepare_select_v2(const OpContext& ctx);
// ARG_MAX and ARG_MIN walk each axis, storing one index per position;
// L2_NORMALIZATION reads each row twice, storing on the second pass.
PreparedKernel prepare_arg_max(const OpContext& ctx);
PreparedKernel prepare_arg_min(const OpContext& ctx);
PreparedKernel prepare_l2_normalization(const OpContext& ctx);

// Shape and copy ops, MEAN, SUM and SVDF: eval walks the whole output ascending.
PreparedKernel prepare_reshape(const OpContext& ctx);
PreparedKernel prepare_squeeze(const OpContext& ctx);
PreparedKernel prepare_concatenation(const OpContext& ctx);
PreparedKernel prepare_split(const OpContext& ctx);
PreparedKernel prepare_pad(const OpContext& ctx);  // PAD and PADV2
PreparedKernel prepare_mean(const OpContext& ctx);
PreparedKernel prepare_sum(const OpContext& ctx);
PreparedKernel prepare_strided_slice(const OpContext& ctx);
PreparedKernel prepare_svdf(const OpContext& ctx);
// Recurrent: steps through time, writing each step's output rows in turn.
PreparedKernel prepare_unidirectional_sequence_lstm(const OpContext& ctx);

// TFLM's signal library (custom ops, dispatched by custom code, their
// parameters in a FlexBuffer map): eval walks the whole output ascending.
PreparedKernel prepare_signal_window(const OpContext& ctx);
PreparedKernel prepare_signal_fft_auto_scale(const OpContext& ctx);
PreparedKernel prepare_signal_rfft(const OpContext& ctx);
PreparedKernel prepare_signal_energy(const OpContext& ctx);
PreparedKernel prepare_signal_filter_bank(const OpContext& ctx);
PreparedKernel prepare_signal_filter_bank_square_root(const OpContext& ctx);
PreparedKernel prepare_signal_filter_bank_spectral_subtraction(const OpContext& ctx);
PreparedKernel prepare_signal_pcan(const OpContext& ctx);
PreparedKernel prepare_signal_filter_bank_log(const OpContext& ctx);

// TFLM's TFLite_Detection_PostProcess (custom op, FlexBuffer options):
// decodes every box, suppresses, then writes its four outputs.
PreparedKernel prepare_detection_postprocess(const OpContext& ctx);

// Comparisons: BOOL output, inputs broadcast as ADD's.
PreparedKernel prepare_equal(const OpContext& ctx);
PreparedKernel prepare_not_equal(const OpContext& ctx);
PreparedKernel prepare_less(const OpContext& ctx);
PreparedKernel prepare_less_equal(const OpContext& ctx);
PreparedKernel prepare_greater(const OpContext& ctx);
PreparedKernel prepare_greater_equal(const OpContext& ctx);

// Shape and gather ops: they walk as the TFLM kernel each mirrors does
// (PACK input by input, BATCH_TO_SPACE_ND over its input).
PreparedKernel prepare_transpose(const OpContext& ctx);
PreparedKernel prepare_expand_dims(const OpContext& ctx);
PreparedKernel prepare_gather(const OpContext& ctx);
PreparedKernel prepare_shape(const OpContext& ctx);
PreparedKernel prepare_slice(const OpContext& ctx);
PreparedKernel prepare_tile(const OpContext& ctx);
PreparedKernel prepare_pack(const OpContext& ctx);
PreparedKernel prepare_unpack(const OpContext& ctx);
PreparedKernel prepare_reverse_v2(const OpContext& ctx);
PreparedKernel prepare_gather_nd(const OpContext& ctx);
PreparedKernel prepare_space_to_batch_nd(const OpContext& ctx);
PreparedKernel prepare_batch_to_space_nd(const OpContext& ctx);

// Matrix and resampling ops: eval walks the whole output ascending.
PreparedKernel prepare_batch_matmul(const OpContext& ctx);
PreparedKernel prepare_resize_bilinear(const OpContext& ctx);
PreparedKernel prepare_resize_nearest_neighbor(const OpContext& ctx);
PreparedKernel prepare_transpose_conv(const OpContext& ctx);

// Resource variables (ops/resource_variables.h): the handle's id is read
// first, then one block copy between the variable and the value.
PreparedKernel prepare_var_handle(const OpContext& ctx);
PreparedKernel prepare_read_variable(const OpContext& ctx);
PreparedKernel prepare_assign_variable(const OpContext& ctx);

// Dispatch on the op kind (builtin ops) or the custom code (CUSTOM ops):
// the op's prepared kernel. Unsupported ops and types fail naming the op
// and its kind; a custom op that runs on an accelerator is refused as such.
PreparedKernel prepare_kernel(const OpContext& ctx);

// A CUSTOM op whose work an accelerator does (Vela's ethos-u, the Edge
// TPU's edgetpu-custom-op, NPU_OP): dmo can plan around it, never run it.
bool is_accelerator_custom_op(const Op& op);

// Prepares and evaluates the whole output in one call, walking as
// ctx.descending says (tests and one-off analyses).
template <class Memory>
void run_kernel(const OpContext& ctx, Memory& memory) {
  KernelIO io{ctx.inputs, ctx.outputs, ctx.descending, {}};
  prepare_kernel(ctx).eval(io, memory);
}

}  // namespace dmo

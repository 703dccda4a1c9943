// Maps an op kind, or a custom op's code, to its prepared kernel. Each
// kernel's prepare checks its own shapes and types and fails naming the op
// when it cannot run them.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>
#include <string_view>
#include <utility>

#include "cmsis_nn/cmsis_nn_kernels.h"
#include "device_order_kernel.h"
#include "dmo/ops/kernels.h"
#include "dmo/ops/walk_order.h"

namespace dmo {

namespace {

using Prepare = PreparedKernel (*)(const OpContext&);

// TFLM's reference kernel of the op (dmo's shared nests).
PreparedKernel prepare_reference_kernel(const OpContext& ctx);

// TFLM's signal library, by the custom code its registration uses.
// Then TFLM's other custom ops.
constexpr std::array<std::pair<std::string_view, Prepare>, 10> kCustomKernels = {{
    {"SignalWindow", &prepare_signal_window},
    {"SignalFftAutoScale", &prepare_signal_fft_auto_scale},
    {"SignalRfft", &prepare_signal_rfft},
    {"SignalEnergy", &prepare_signal_energy},
    {"SignalFilterBank", &prepare_signal_filter_bank},
    {"SignalFilterBankSquareRoot", &prepare_signal_filter_bank_square_root},
    {"SignalFilterBankSpectralSubtraction", &prepare_signal_filter_bank_spectral_subtraction},
    {"SignalPCAN", &prepare_signal_pcan},
    {"SignalFilterBankLog", &prepare_signal_filter_bank_log},
    // Object detection.
    {"TFLite_Detection_PostProcess", &prepare_detection_postprocess},
}};

constexpr std::array<std::string_view, 3> kAcceleratorCustomOps = {"ethos-u", "edgetpu-custom-op", "NPU_OP"};

PreparedKernel prepare_custom_kernel(const OpContext& ctx) {
  const std::string& code = ctx.op->custom_code;
  if (is_accelerator_custom_op(*ctx.op)) {
    ctx.fail(fmt::format("custom op '{}' runs on an accelerator; dmo cannot execute it", code));
  }
  for (const auto& [name, prepare] : kCustomKernels) {
    if (name == code) return prepare(ctx);
  }
  ctx.fail(fmt::format("dmo has no kernel for custom op '{}'", code));
}

}  // namespace

bool is_accelerator_custom_op(const Op& op) {
  return op.is(OpKind::kCustom) && std::find(kAcceleratorCustomOps.begin(), kAcceleratorCustomOps.end(),
                                             op.custom_code) != kAcceleratorCustomOps.end();
}

PreparedKernel prepare_kernel(const OpContext& ctx) {
  if (is_cmsis_nn(ctx.family)) {
    // The firmware's kernels are fixed: they walk as CMSIS-NN (or TFLM's
    // reference, where its glue falls back) walks, ascending.
    if (ctx.descending) ctx.fail(fmt::format("{} kernels walk their output ascending only; the plan asks for descending", kernel_family_name(ctx.family)));
    if (std::optional<PreparedKernel> kernel = prepare_cmsis_nn_kernel(ctx)) return *std::move(kernel);
  }
  PreparedKernel reference = prepare_reference_kernel(ctx);
  if (ctx.family == KernelFamily::kDmoDevice) return with_device_order(ctx, std::move(reference));
  return reference;
}

namespace {

PreparedKernel prepare_reference_kernel(const OpContext& ctx) {
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
    case OpKind::kCast: return prepare_cast(ctx);
    case OpKind::kDiv: return prepare_div(ctx);
    case OpKind::kMaximum: return prepare_maximum(ctx);
    case OpKind::kMinimum: return prepare_minimum(ctx);
    case OpKind::kLeakyRelu: return prepare_leaky_relu(ctx);
    case OpKind::kSqrt: return prepare_sqrt(ctx);
    case OpKind::kRsqrt: return prepare_rsqrt(ctx);
    case OpKind::kExp: return prepare_exp(ctx);
    case OpKind::kLog: return prepare_log(ctx);
    case OpKind::kPrelu: return prepare_prelu(ctx);
    case OpKind::kPow: return prepare_pow(ctx);
    case OpKind::kSquaredDifference: return prepare_squared_difference(ctx);
    case OpKind::kFloorDiv: return prepare_floor_div(ctx);
    case OpKind::kFloorMod: return prepare_floor_mod(ctx);
    case OpKind::kSelectV2: return prepare_select_v2(ctx);
    case OpKind::kArgMax: return prepare_arg_max(ctx);
    case OpKind::kArgMin: return prepare_arg_min(ctx);
    case OpKind::kL2Normalization: return prepare_l2_normalization(ctx);
    // Shape, copy and reduction ops.
    case OpKind::kReshape: return prepare_reshape(ctx);
    case OpKind::kSqueeze: return prepare_squeeze(ctx);
    case OpKind::kConcatenation: return prepare_concatenation(ctx);
    case OpKind::kSplit: return prepare_split(ctx);
    case OpKind::kPad: return prepare_pad(ctx);
    case OpKind::kPadV2: return prepare_pad(ctx);
    case OpKind::kMean: return prepare_mean(ctx);
    case OpKind::kSum: return prepare_sum(ctx);
    case OpKind::kStridedSlice: return prepare_strided_slice(ctx);
    case OpKind::kSvdf: return prepare_svdf(ctx);
    // Custom ops, by their code.
    case OpKind::kCustom: return prepare_custom_kernel(ctx);
    case OpKind::kUnidirectionalSequenceLstm: return prepare_unidirectional_sequence_lstm(ctx);
    // Comparisons.
    case OpKind::kEqual: return prepare_equal(ctx);
    case OpKind::kNotEqual: return prepare_not_equal(ctx);
    case OpKind::kLess: return prepare_less(ctx);
    case OpKind::kLessEqual: return prepare_less_equal(ctx);
    case OpKind::kGreater: return prepare_greater(ctx);
    case OpKind::kGreaterEqual: return prepare_greater_equal(ctx);
    // Shape and gather ops.
    case OpKind::kTranspose: return prepare_transpose(ctx);
    case OpKind::kExpandDims: return prepare_expand_dims(ctx);
    case OpKind::kGather: return prepare_gather(ctx);
    case OpKind::kShape: return prepare_shape(ctx);
    case OpKind::kSlice: return prepare_slice(ctx);
    case OpKind::kTile: return prepare_tile(ctx);
    case OpKind::kPack: return prepare_pack(ctx);
    case OpKind::kUnpack: return prepare_unpack(ctx);
    case OpKind::kReverseV2: return prepare_reverse_v2(ctx);
    case OpKind::kGatherNd: return prepare_gather_nd(ctx);
    case OpKind::kSpaceToBatchNd: return prepare_space_to_batch_nd(ctx);
    case OpKind::kBatchToSpaceNd: return prepare_batch_to_space_nd(ctx);
    // Matrix and resampling ops.
    case OpKind::kBatchMatMul: return prepare_batch_matmul(ctx);
    case OpKind::kResizeBilinear: return prepare_resize_bilinear(ctx);
    case OpKind::kResizeNearestNeighbor: return prepare_resize_nearest_neighbor(ctx);
    case OpKind::kTransposeConv: return prepare_transpose_conv(ctx);
    // Resource variables.
    case OpKind::kVarHandle: return prepare_var_handle(ctx);
    case OpKind::kReadVariable: return prepare_read_variable(ctx);
    case OpKind::kAssignVariable: return prepare_assign_variable(ctx);
    default: break;
  }
  ctx.fail(fmt::format("dmo has no kernel for this op (builtin code {})", ctx.op->builtin_code));
}

}  // namespace

}  // namespace dmo

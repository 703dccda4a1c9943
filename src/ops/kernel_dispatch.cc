// Maps an op kind to its prepared kernel. Each kernel's prepare checks its
// own shapes and types and fails naming the op when it cannot run them.
#include <fmt/format.h>

#include "dmo/ops/kernel_instantiation.h"
#include "dmo/ops/kernels.h"
#include "dmo/ops/walk_order.h"

namespace dmo {
namespace {

// A kernel not yet split into prepare and eval: its one function checks and
// loops, and runs again on every eval.
struct OneStepKernel {
  const Subgraph* subgraph;
  const Op* op;
  int32_t op_index;

  template <class Memory>
  void eval(const KernelIO& io, Memory& memory) const {
    OpContext ctx;
    ctx.subgraph = subgraph;
    ctx.op = op;
    ctx.op_index = op_index;
    ctx.inputs.assign(io.inputs.begin(), io.inputs.end());
    ctx.outputs.assign(io.outputs.begin(), io.outputs.end());
    run(ctx, memory);
  }

  template <class Memory>
  static void run(const OpContext& ctx, Memory& memory) {
    switch (static_cast<OpKind>(ctx.op->builtin_code)) {
      case OpKind::kFullyConnected: return run_fully_connected(ctx, memory);
      case OpKind::kAdd: return run_add(ctx, memory);
      case OpKind::kSub: return run_sub(ctx, memory);
      case OpKind::kMul: return run_mul(ctx, memory);
      case OpKind::kRelu: return run_relu(ctx, memory);
      case OpKind::kRelu6: return run_relu6(ctx, memory);
      case OpKind::kReluN1To1: return run_relu_n1_to_1(ctx, memory);
      case OpKind::kLogistic: return run_logistic(ctx, memory);
      case OpKind::kTanh: return run_tanh(ctx, memory);
      case OpKind::kHardSwish: return run_hard_swish(ctx, memory);
      case OpKind::kSoftmax: return run_softmax(ctx, memory);
      case OpKind::kQuantize: return run_quantize(ctx, memory);
      case OpKind::kDequantize: return run_dequantize(ctx, memory);
      default: break;
    }
    ctx.fail(fmt::format("dmo has no kernel for this op (builtin code {})", ctx.op->builtin_code));
  }
};

bool has_one_step_kernel(OpKind kind) {
  switch (kind) {
    case OpKind::kFullyConnected: case OpKind::kAdd: case OpKind::kSub: case OpKind::kMul: case OpKind::kRelu:
    case OpKind::kRelu6: case OpKind::kReluN1To1: case OpKind::kLogistic: case OpKind::kTanh:
    case OpKind::kHardSwish: case OpKind::kSoftmax: case OpKind::kQuantize: case OpKind::kDequantize:
      return true;
    default: return false;
  }
}

}  // namespace

PreparedKernel prepare_kernel(const OpContext& ctx) {
  const auto kind = static_cast<OpKind>(ctx.op->builtin_code);
  if (ctx.descending && !kernel_walks_descending(kind)) {
    ctx.fail("this kernel walks its output ascending only; the plan asks for descending");
  }
  switch (kind) {
    case OpKind::kConv2D: return prepare_conv2d(ctx);
    case OpKind::kDepthwiseConv2D: return prepare_depthwise_conv2d(ctx);
    case OpKind::kAveragePool2D: return prepare_average_pool_2d(ctx);
    case OpKind::kMaxPool2D: return prepare_max_pool_2d(ctx);
    case OpKind::kReshape: return prepare_reshape(ctx);
    case OpKind::kSqueeze: return prepare_squeeze(ctx);
    case OpKind::kConcatenation: return prepare_concatenation(ctx);
    case OpKind::kSplit: return prepare_split(ctx);
    case OpKind::kPad: return prepare_pad(ctx);
    case OpKind::kPadV2: return prepare_pad(ctx);
    case OpKind::kMean: return prepare_mean(ctx);
    case OpKind::kStridedSlice: return prepare_strided_slice(ctx);
    case OpKind::kSvdf: return prepare_svdf(ctx);
    default: break;
  }
  if (has_one_step_kernel(kind)) return PreparedKernel::of(OneStepKernel{ctx.subgraph, ctx.op, ctx.op_index});
  ctx.fail(fmt::format("dmo has no kernel for this op (builtin code {})", ctx.op->builtin_code));
}

}  // namespace dmo

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
      case OpKind::kReshape: return run_reshape(ctx, memory);
      case OpKind::kSqueeze: return run_squeeze(ctx, memory);
      case OpKind::kConcatenation: return run_concatenation(ctx, memory);
      case OpKind::kSplit: return run_split(ctx, memory);
      case OpKind::kPad: return run_pad(ctx, memory);
      case OpKind::kPadV2: return run_pad(ctx, memory);
      case OpKind::kMean: return run_mean(ctx, memory);
      case OpKind::kStridedSlice: return run_strided_slice(ctx, memory);
      case OpKind::kSvdf: return run_svdf(ctx, memory);
      default: break;
    }
    ctx.fail(fmt::format("dmo has no kernel for this op (builtin code {})", ctx.op->builtin_code));
  }
};

bool has_one_step_kernel(OpKind kind) {
  switch (kind) {
    case OpKind::kReshape: case OpKind::kSqueeze: case OpKind::kConcatenation: case OpKind::kSplit:
    case OpKind::kPad: case OpKind::kPadV2: case OpKind::kMean: case OpKind::kStridedSlice: case OpKind::kSvdf:
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
    default: break;
  }
  if (has_one_step_kernel(kind)) return PreparedKernel::of(OneStepKernel{ctx.subgraph, ctx.op, ctx.op_index});
  ctx.fail(fmt::format("dmo has no kernel for this op (builtin code {})", ctx.op->builtin_code));
}

}  // namespace dmo

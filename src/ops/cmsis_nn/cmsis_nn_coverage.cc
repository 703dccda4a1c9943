#include "dmo/ops/cmsis_nn_coverage.h"

namespace dmo {

namespace {

DataType type_of(const Subgraph& subgraph, const Op& op, size_t input) {
  if (input >= op.inputs.size() || op.inputs[input] < 0 ||
      static_cast<size_t>(op.inputs[input]) >= subgraph.tensors.size()) {
    return DataType::kFloat32;  // nothing to say: the kernel's prepare names the problem
  }
  return subgraph.tensors[static_cast<size_t>(op.inputs[input])].type;
}

}  // namespace

std::optional<std::string> unmirrored_cmsis_nn_function(const Subgraph& subgraph, const Op& op) {
  const DataType input = type_of(subgraph, op, 0);
  const bool int8 = input == DataType::kInt8;
  const bool int4_filter = type_of(subgraph, op, 1) == DataType::kInt4;
  switch (static_cast<OpKind>(op.builtin_code)) {
    case OpKind::kConv2D:
      if (int8 && int4_filter) return "arm_convolve_wrapper_s4";
      return std::nullopt;
    case OpKind::kDepthwiseConv2D:
      if (int8 && int4_filter) return "arm_depthwise_conv_wrapper_s4";
      return std::nullopt;
    case OpKind::kFullyConnected:
      if (int8 && int4_filter) return "arm_fully_connected_s4";
      return std::nullopt;
    // The glue sends INT8 to these (INT16 to the reference kernels). dmo
    // mirrors them except for the shapes its cmsis prepare refuses: only
    // those get here, an op whose prepare names an implementation is
    // analysed instead.
    case OpKind::kMaximum:
      if (int8) return "arm_maximum_s8";
      return std::nullopt;
    case OpKind::kMinimum:
      if (int8) return "arm_minimum_s8";
      return std::nullopt;
    case OpKind::kPad:
    case OpKind::kPadV2:
      if (int8) return "arm_pad_s8";
      return std::nullopt;
    case OpKind::kTranspose:
      if (int8) return "arm_transpose_s8";
      return std::nullopt;
    default: return std::nullopt;
  }
}

}  // namespace dmo

// The prepared state CONV_2D and DEPTHWISE_CONV_2D share: the op's geometry
// and the arithmetic of its element type, evaluated by the op's own loop
// nest (`Loops::run(geometry, arithmetic, io, memory)`), on dense tensors
// without per-access stride checks (dense_memory.h).
#pragma once

#include <fmt/format.h>

#include "../dense_memory.h"
#include "dmo/ops/eval/conv_arithmetic.h"
#include "conv_quantization.h"
#include "dmo/ops/kernel_io.h"
#include "dmo/ops/op_context.h"

namespace dmo {

template <class Geometry, class Loops>
struct ConvLikeKernel {
  Geometry g;
  DataType type = DataType::kFloat32;
  FloatRange float_range;
  ConvRequantization requantization;  // INT8 (per channel) and UINT8 (per tensor)

  template <class Memory>
  void eval(const KernelIO& io, Memory& memory) const {
    eval_dense_direct(io, memory, [&](auto& mem) {
      switch (type) {
        case DataType::kInt8: return Loops::run(g, QuantizedConvArithmetic<int8_t>(requantization), io, mem);
        case DataType::kUInt8: return Loops::run(g, QuantizedConvArithmetic<uint8_t>(requantization), io, mem);
        default: return Loops::run(g, FloatConvArithmetic{float_range}, io, mem);
      }
    });
  }

  // The arithmetic for input 0's type: int8 per channel (the filter's
  // `quantized_dimension` holds the output channels), uint8 per tensor.
  void prepare_arithmetic(const OpContext& ctx, Activation activation, int32_t output_depth,
                          int32_t quantized_dimension) {
    type = ctx.input(0).type();
    switch (type) {
      case DataType::kFloat32:
        float_range = float_activation_range(activation);
        return;
      case DataType::kInt8:
        requantization = per_channel_requantization(ctx, activation, output_depth, quantized_dimension);
        return;
      case DataType::kUInt8:
        requantization = per_tensor_requantization(ctx, activation, output_depth);
        return;
      default:
        ctx.fail(fmt::format("input type {} is not supported; supported: FLOAT32, INT8, UINT8",
                             data_type_name(type)));
    }
  }
};

}  // namespace dmo

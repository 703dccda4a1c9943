// FULLY_CONNECTED, mirroring TFLM's reference_ops::FullyConnected (float,
// uint8) and reference_integer_ops::FullyConnected / FullyConnectedPerChannel
// (int8), and reference_integer_ops::FullyConnected<int64_t> for int16
// activations with int8 weights and int64 bias (kernels/fully_connected.cc
// FullyConnectedEval, kTfLiteInt16 case): the input read as [batches,
// accum_depth] (accum_depth = weights dimension 1), weights [units,
// accum_depth], optional bias, in their loop order (batch, unit, then
// depth): each output element is stored once, after its whole input row is
// read.
// keep_num_dims only changes the output shape, which the model gives.
#include <fmt/format.h>

#include <utility>
#include <variant>

#include "dmo/ops/eval/conv_arithmetic.h"
#include "../conv2d/conv_operand_types.h"
#include "../conv2d/conv_quantization.h"
#include "../dense_memory.h"
#include "../elementwise.h"
#include "dmo/ops/eval/fully_connected_loops.h"
#include "dmo/ops/kernels.h"
#include "int16_fully_connected_arithmetic.h"

namespace dmo {
namespace {

FullyConnectedGeometry fully_connected_geometry(const OpContext& ctx) {
  const TensorRef& input = ctx.input(0);
  const TensorRef& weights = ctx.input(1);
  const TensorRef& output = ctx.output(0);
  ctx.require(weights.rank() == 2,
              fmt::format("weights must be 2-D [units, depth], are {}", shape_to_string(weights.shape())));
  FullyConnectedGeometry g;
  g.units = weights.dim(0);
  g.accum_depth = weights.dim(1);
  ctx.require(g.accum_depth > 0, "weights depth must be positive");
  ctx.require(input.elements() % g.accum_depth == 0,
              fmt::format("input {} does not split into rows of depth {}", shape_to_string(input.shape()),
                          g.accum_depth));
  g.batches = input.elements() / g.accum_depth;
  ctx.require(output.elements() == g.batches * g.units,
              fmt::format("output {} is not {} batches of {} units", shape_to_string(output.shape()), g.batches,
                          g.units));
  if (ctx.has_input(2)) {
    ctx.require(ctx.input(2).elements() == g.units,
                fmt::format("bias has {} elements for {} units", ctx.input(2).elements(), g.units));
  }
  return g;
}

// The prepared FULLY_CONNECTED: geometry and the arithmetic of its element type.
struct FullyConnectedKernel {
  FullyConnectedGeometry g;
  DataType type = DataType::kFloat32;
  FloatRange float_range{};  // FLOAT32
  ConvRequantization requantization;  // INT8 (per channel or per tensor) and UINT8 (per tensor)
  Int16FullyConnectedArithmetic int16;  // INT16

  template <class Memory>
  void eval(const KernelIO& io, Memory& memory) const {
    eval_dense_direct(io, memory, [&](auto& mem) {
      switch (type) {
        case DataType::kInt8:
          return fully_connected_loops(g, QuantizedConvArithmetic<int8_t>(requantization), io, mem);
        case DataType::kUInt8:
          return fully_connected_loops(g, QuantizedConvArithmetic<uint8_t>(requantization), io, mem);
        case DataType::kInt16: return fully_connected_loops(g, int16, io, mem);
        default: return fully_connected_loops(g, FloatConvArithmetic{float_range}, io, mem);
      }
    });
  }
};

constexpr const char* kSupportedInputTypes = "FLOAT32, INT8, INT16, UINT8";

// INT16 activations take INT8 weights and an INT64 bias (TFLM's Prepare and
// the int64_t bias its Eval reads).
void require_int16_operand_types(const OpContext& ctx) {
  const DataType weights = ctx.input(1).type();
  ctx.require(weights == DataType::kInt8, fmt::format("weights type {} with INT16 input is not supported; the weights "
                                                      "must be INT8",
                                                      data_type_name(weights)));
  if (ctx.has_input(2)) {
    const DataType bias = ctx.input(2).type();
    ctx.require(bias == DataType::kInt64, fmt::format("bias type {} with INT16 input is not supported; the bias must "
                                                      "be INT64",
                                                      data_type_name(bias)));
  }
  const DataType output = ctx.output(0).type();
  ctx.require(output == DataType::kInt16, fmt::format("output type {} with INT16 input is not supported; the output "
                                                      "must be INT16",
                                                      data_type_name(output)));
}

// A kernel with its device path: dmo's int8 device kernel, or for uint8
// and float32 the shared nest.
PreparedKernel with_device_path(FullyConnectedKernel k) {
  auto device = std::make_shared<DeviceKernel>();
  device->loops = DeviceLoops::kFullyConnected;
  device->type = k.type;
  device->fully_connected = k.g;
  device->requantization = device_requantization(k.requantization);
  device->float_range = k.float_range;
  PreparedKernel p = PreparedKernel::of(std::move(k));
  p.device = std::move(device);
  return p;
}

}  // namespace

PreparedKernel prepare_fully_connected(const OpContext& ctx) {
  require_conv_operand_counts(ctx, "weights");
  const auto* params = std::get_if<FullyConnectedParams>(&ctx.op->params);
  ctx.require(params != nullptr, "missing FULLY_CONNECTED parameters");
  ctx.require(params->weights_format == 0,
              fmt::format("weights format {} is not supported; supported: DEFAULT (0)", params->weights_format));
  const DataType input_type = ctx.input(0).type();
  if (input_type != DataType::kFloat32 && input_type != DataType::kInt8 && input_type != DataType::kInt16 &&
      input_type != DataType::kUInt8) {
    fail_unsupported_type(ctx, "input", input_type, kSupportedInputTypes);
  }
  if (input_type == DataType::kInt16) require_int16_operand_types(ctx);
  else require_conv_operand_types(ctx);
  FullyConnectedKernel k;
  k.g = fully_connected_geometry(ctx);
  k.type = input_type;
  switch (k.type) {
    case DataType::kFloat32:
      k.float_range = float_activation_range(params->activation);
      return with_device_path(std::move(k));
    case DataType::kInt8: {
      // Per-channel weights (one scale per unit) ignore the weights' zero
      // point; per-tensor weights apply it, as TFLite Micro does.
      const bool per_channel = ctx.input(1).tensor->quantization.per_channel();
      k.requantization =
          per_channel ? per_channel_requantization(ctx, params->activation, k.g.units, /*quantized_dimension=*/0)
                      : per_tensor_requantization(ctx, params->activation, k.g.units);
      return with_device_path(std::move(k));
    }
    case DataType::kUInt8:
      k.requantization = per_tensor_requantization(ctx, params->activation, k.g.units);
      return with_device_path(std::move(k));
    case DataType::kInt16:
      k.int16 = int16_fully_connected_arithmetic(ctx, params->activation);
      return PreparedKernel::of(std::move(k));
    default:
      break;
  }
  fail_unsupported_type(ctx, "input", input_type, kSupportedInputTypes);
}

}  // namespace dmo

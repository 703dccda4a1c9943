// FULLY_CONNECTED: the input read as [batches, accum_depth] (accum_depth =
// weights dimension 1), weights [units, accum_depth], optional bias, in the
// loop order of TFLite's reference FullyConnected (batch, unit, then depth).
// keep_num_dims only changes the output shape, which the model gives.
#include <fmt/format.h>

#include <variant>

#include "../conv2d/conv_arithmetic.h"
#include "../conv2d/conv_operand_types.h"
#include "../conv2d/conv_quantization.h"
#include "dmo/ops/kernel_instantiation.h"
#include "dmo/ops/kernels.h"

namespace dmo {
namespace {

struct FullyConnectedGeometry {
  int64_t batches = 0;
  int32_t units = 0;
  int32_t accum_depth = 0;
};

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

template <class Arithmetic, class Memory>
void fully_connected_loops(const FullyConnectedGeometry& g, const Arithmetic& arithmetic, const OpContext& ctx,
                           Memory& mem) {
  using Input = typename Arithmetic::Input;
  using Filter = typename Arithmetic::Filter;
  using Bias = typename Arithmetic::Bias;
  using Output = typename Arithmetic::Output;
  const TensorRef& input = ctx.input(0);
  const TensorRef& weights = ctx.input(1);
  const TensorRef& output = ctx.output(0);
  const bool has_bias = ctx.has_input(2);
  const TensorRef bias = has_bias ? ctx.input(2) : TensorRef{};

  for (int64_t batch = 0; batch < g.batches; ++batch) {
    const int64_t input_row = batch * g.accum_depth;
    for (int32_t unit = 0; unit < g.units; ++unit) {
      const int64_t weights_row = int64_t{unit} * g.accum_depth;
      typename Arithmetic::Accumulator acc{};
      for (int32_t d = 0; d < g.accum_depth; ++d) {
        const Input in = mem.template load<Input>(input, input_row + d);
        const Filter weight = mem.template load<Filter>(weights, weights_row + d);
        acc = arithmetic.multiply_add(acc, in, weight);
      }
      const Bias bias_value = has_bias ? mem.template load<Bias>(bias, unit) : Bias{};
      mem.template store<Output>(output, batch * g.units + unit, arithmetic.finish(acc, bias_value, unit));
    }
  }
}

}  // namespace

template <class Memory>
void run_fully_connected(const OpContext& ctx, Memory& mem) {
  require_conv_operand_counts(ctx, "weights");
  const auto* params = std::get_if<FullyConnectedParams>(&ctx.op->params);
  ctx.require(params != nullptr, "missing FULLY_CONNECTED parameters");
  ctx.require(params->weights_format == 0,
              fmt::format("weights format {} is not supported; supported: DEFAULT (0)", params->weights_format));
  require_conv_operand_types(ctx);
  const FullyConnectedGeometry g = fully_connected_geometry(ctx);

  switch (ctx.input(0).type()) {
    case DataType::kFloat32:
      fully_connected_loops(g, FloatConvArithmetic{float_activation_range(params->activation)}, ctx, mem);
      return;
    case DataType::kInt8: {
      // Per-channel weights (one scale per unit) ignore the weights' zero
      // point; per-tensor weights apply it, as TFLite Micro does.
      const bool per_channel = ctx.input(1).tensor->quantization.per_channel();
      const ConvRequantization q =
          per_channel ? per_channel_requantization(ctx, params->activation, g.units, /*quantized_dimension=*/0)
                      : per_tensor_requantization(ctx, params->activation, g.units);
      fully_connected_loops(g, QuantizedConvArithmetic<int8_t>(q), ctx, mem);
      return;
    }
    case DataType::kUInt8: {
      const ConvRequantization q = per_tensor_requantization(ctx, params->activation, g.units);
      fully_connected_loops(g, QuantizedConvArithmetic<uint8_t>(q), ctx, mem);
      return;
    }
    default:
      break;
  }
  ctx.fail(fmt::format("input type {} is not supported; supported: FLOAT32, INT8, UINT8",
                       data_type_name(ctx.input(0).type())));
}

DMO_INSTANTIATE_KERNEL(run_fully_connected);

}  // namespace dmo

#include "conv_quantization.h"

#include <fmt/format.h>

#include <cmath>

namespace dmo {
namespace {

// Zero points inside the element type's range keep every product of
// offset values well inside 32 bits.
int32_t zero_point_of(const OpContext& ctx, const Tensor& tensor) {
  if (tensor.quantization.zero_point.empty()) return 0;
  const int64_t zero_point = tensor.quantization.zero_point[0];
  const QuantizedRange range = type_range(tensor.type);
  ctx.require(zero_point >= range.min && zero_point <= range.max,
              fmt::format("tensor '{}' has zero point {} outside the {} range", tensor.name, zero_point,
                          data_type_name(tensor.type)));
  return static_cast<int32_t>(zero_point);
}

// Activations are quantized per tensor; the output scale divides.
void require_activation_quantization(const OpContext& ctx) {
  const Tensor& input = *ctx.input(0).tensor;
  const Tensor& output = *ctx.output(0).tensor;
  ctx.require(!input.quantization.empty(), "quantized input has no quantization parameters");
  ctx.require(!output.quantization.empty(), "quantized output has no quantization parameters");
  ctx.require(output.quantization.scale[0] > 0.0f, "output scale must be positive");
  ctx.require(input.quantization.scale[0] >= 0.0f, "input scale must not be negative");
  ctx.require(!ctx.input(1).tensor->quantization.empty(), "quantized filter has no quantization parameters");
}

// A real multiplier as mantissa and exponent; a left shift past 31 bits
// would have no meaning for a 32-bit accumulator.
QuantizedMultiplier checked_multiplier(const OpContext& ctx, double real) {
  ctx.require(std::isfinite(real) && real >= 0.0,
              fmt::format("effective output scale {} is not a finite non-negative number", real));
  const QuantizedMultiplier multiplier = quantize_multiplier(real);
  ctx.require(multiplier.shift <= 31, fmt::format("effective output scale {} is too large", real));
  return multiplier;
}

ConvRequantization offsets_and_range(const OpContext& ctx, Activation activation) {
  ConvRequantization q;
  q.input_offset = -zero_point_of(ctx, *ctx.input(0).tensor);
  q.output_offset = zero_point_of(ctx, *ctx.output(0).tensor);
  q.range = quantized_activation_range(activation, *ctx.output(0).tensor);
  return q;
}

}  // namespace

ConvRequantization per_channel_requantization(const OpContext& ctx, Activation activation, int32_t channels,
                                              int32_t quantized_dimension) {
  require_activation_quantization(ctx);
  const Quantization& filter = ctx.input(1).tensor->quantization;
  const size_t scales = filter.scale.size();
  if (scales > 1) {
    ctx.require(scales == static_cast<size_t>(channels),
                fmt::format("filter has {} scales for {} output channels", scales, channels));
    ctx.require(filter.quantized_dimension == quantized_dimension,
                fmt::format("filter is quantized along dimension {}, expected {}", filter.quantized_dimension,
                            quantized_dimension));
  }
  ConvRequantization q = offsets_and_range(ctx, activation);
  const double input_scale = static_cast<double>(ctx.input(0).tensor->quantization.scale[0]);
  const double output_scale = static_cast<double>(ctx.output(0).tensor->quantization.scale[0]);
  q.multipliers.reserve(static_cast<size_t>(channels));
  for (int32_t c = 0; c < channels; ++c) {
    const double filter_scale = static_cast<double>(filter.scale[scales > 1 ? static_cast<size_t>(c) : 0]);
    q.multipliers.push_back(checked_multiplier(ctx, input_scale * filter_scale / output_scale));
  }
  return q;
}

ConvRequantization per_tensor_requantization(const OpContext& ctx, Activation activation, int32_t channels) {
  require_activation_quantization(ctx);
  const Tensor& filter = *ctx.input(1).tensor;
  ctx.require(filter.quantization.scale.size() == 1,
              fmt::format("{} filter must be quantized per tensor", data_type_name(filter.type)));
  ConvRequantization q = offsets_and_range(ctx, activation);
  q.filter_offset = -zero_point_of(ctx, filter);
  // TFLite multiplies the two scales in float before widening to double.
  const float product = ctx.input(0).tensor->quantization.scale[0] * filter.quantization.scale[0];
  const double real = static_cast<double>(product) / static_cast<double>(ctx.output(0).tensor->quantization.scale[0]);
  q.multipliers.assign(static_cast<size_t>(channels), checked_multiplier(ctx, real));
  return q;
}

}  // namespace dmo

// TRANSPOSE_CONV, mirroring TFLM's transpose_conv.cc (Prepare, Eval) and
// the reference kernels it calls: reference_ops::TransposeConv (FLOAT32),
// reference_integer_ops::TransposeConv for int8 (int32 accumulators) and
// for 16x8 (INT16 input and output, INT8 filter, int64 accumulators, an
// INT16 bias widened first into TFLM's converted-bias scratch buffer).
// Operands: (output_shape, filter [out_depth, h, w, in_depth], input, bias);
// TFLM ignores the output_shape tensor and takes the output's shape.
// All paths scatter: for each input element in order (batch, y, x,
// channel), each filter tap (y, x) and output channel, the product is
// added to the output element it lands on. Padding is computed from the
// output size as for a conv whose input is this op's output.
//  - float accumulates in the output itself: a first pass zeroes the whole
//    output before any input is read, so no byte of the output may overlap
//    the input (O_s 0). A last pass adds the bias and clamps to the fused
//    activation, in place.
//  - int8 and int16 accumulate in TFLM's scratch buffer (one int32 or int64
//    per output element, requested in the arena; `scratch` here), zeroed
//    first; the output is written only in the last pass (bias, per-channel
//    requantization, plus the output zero point for int8, clamp to the
//    type), after every input read. TFLM applies no fused activation to
//    these types.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "../elementwise.h"
#include "dmo/ops/activation_range.h"
#include "dmo/ops/fixed_point.h"
#include "dmo/ops/kernels.h"
#include "dmo/ops/padding.h"

namespace dmo {
namespace {

constexpr size_t kFilter = 1, kInput = 2, kBias = 3;

struct TransposeConvGeometry {
  int64_t batches = 0, input_height = 0, input_width = 0, input_depth = 0;
  int64_t filter_height = 0, filter_width = 0;
  int64_t output_height = 0, output_width = 0, output_depth = 0;
  int64_t stride_height = 1, stride_width = 1, pad_height = 0, pad_width = 0;

  int64_t input_offset(int64_t b, int64_t y, int64_t x, int64_t c) const {
    return ((b * input_height + y) * input_width + x) * input_depth + c;
  }
  int64_t filter_offset(int64_t oc, int64_t y, int64_t x, int64_t ic) const {
    return ((oc * filter_height + y) * filter_width + x) * input_depth + ic;
  }
  int64_t output_offset(int64_t b, int64_t y, int64_t x, int64_t c) const {
    return ((b * output_height + y) * output_width + x) * output_depth + c;
  }
};

// The scatter loop nest of every reference TransposeConv: `accumulate(
// output index, input index, filter index)` for each in-bounds product.
template <class Accumulate>
void scatter(const TransposeConvGeometry& g, const Accumulate& accumulate) {
  for (int64_t b = 0; b < g.batches; ++b) {
    for (int64_t in_y = 0; in_y < g.input_height; ++in_y) {
      for (int64_t in_x = 0; in_x < g.input_width; ++in_x) {
        for (int64_t in_c = 0; in_c < g.input_depth; ++in_c) {
          const int64_t out_x_origin = in_x * g.stride_width - g.pad_width;
          const int64_t out_y_origin = in_y * g.stride_height - g.pad_height;
          for (int64_t f_y = 0; f_y < g.filter_height; ++f_y) {
            for (int64_t f_x = 0; f_x < g.filter_width; ++f_x) {
              for (int64_t out_c = 0; out_c < g.output_depth; ++out_c) {
                const int64_t out_x = out_x_origin + f_x;
                const int64_t out_y = out_y_origin + f_y;
                if (out_x >= 0 && out_x < g.output_width && out_y >= 0 && out_y < g.output_height) {
                  accumulate(g.output_offset(b, out_y, out_x, out_c), g.input_offset(b, in_y, in_x, in_c),
                             g.filter_offset(out_c, f_y, f_x, in_c));
                }
              }
            }
          }
        }
      }
    }
  }
}

struct TransposeConvFloatKernel {
  TransposeConvGeometry g;
  FloatRange range;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const TensorRef& filter = io.input(kFilter);
    const TensorRef& input = io.input(kInput);
    const TensorRef& output = io.output(0);
    const int64_t n = output.elements();
    for (int64_t i = 0; i < n; ++i) mem.template store<float>(output, i, 0.0f);
    scatter(g, [&](int64_t o, int64_t i, int64_t f) {
      const float input_value = mem.template load<float>(input, i);
      const float filter_value = mem.template load<float>(filter, f);
      mem.template store<float>(output, o, mem.template load<float>(output, o) + input_value * filter_value);
    });
    const bool has_bias = io.has_input(kBias);
    for (int64_t o = 0; o < n; ++o) {
      float acc = mem.template load<float>(output, o);
      if (has_bias) acc += mem.template load<float>(io.input(kBias), o % g.output_depth);
      mem.template store<float>(output, o, std::min(std::max(acc, range.min), range.max));
    }
  }
};

// int8 (Input int8_t, Accumulator int32_t, Bias int32_t) and 16x8 (Input
// int16_t, Accumulator int64_t, Bias int64_t or int16_t).
template <typename Input, typename Bias>
struct TransposeConvQuantizedKernel {
  using Accumulator = std::conditional_t<std::is_same_v<Input, int8_t>, int32_t, int64_t>;
  using Unsigned = std::make_unsigned_t<Accumulator>;

  TransposeConvGeometry g;
  int32_t input_offset = 0;   // int8: -(input zero point)
  int32_t output_offset = 0;  // int8: output zero point
  std::vector<QuantizedMultiplier> multipliers;  // per output channel
  // TFLM's scratch buffers: the accumulators, and (16x8 with an INT16
  // bias) the bias widened to int64.
  mutable std::vector<Accumulator> scratch;
  mutable std::vector<int64_t> converted_bias;

  static Accumulator wrapping_add(Accumulator a, Accumulator b) {
    return static_cast<Accumulator>(static_cast<Unsigned>(a) + static_cast<Unsigned>(b));
  }

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const TensorRef& filter = io.input(kFilter);
    const TensorRef& input = io.input(kInput);
    const TensorRef& output = io.output(0);
    const bool has_bias = io.has_input(kBias);
    constexpr bool kWidenBias = std::is_same_v<Bias, int16_t>;
    if constexpr (kWidenBias) {
      if (has_bias) {
        for (int64_t c = 0; c < g.output_depth; ++c) {
          converted_bias[static_cast<size_t>(c)] = mem.template load<int16_t>(io.input(kBias), c);
        }
      }
    }
    std::fill(scratch.begin(), scratch.end(), Accumulator{0});
    scatter(g, [&](int64_t o, int64_t i, int64_t f) {
      const int32_t input_value = mem.template load<Input>(input, i);
      const int32_t filter_value = mem.template load<int8_t>(filter, f);
      Accumulator& acc = scratch[static_cast<size_t>(o)];
      acc = wrapping_add(acc, static_cast<Accumulator>((input_value + input_offset) * filter_value));
    });
    const int64_t n = output.elements();
    for (int64_t o = 0; o < n; ++o) {
      const int64_t c = o % g.output_depth;
      Accumulator acc = scratch[static_cast<size_t>(o)];
      if (has_bias) {
        if constexpr (kWidenBias) {
          acc += converted_bias[static_cast<size_t>(c)];
        } else {
          acc = wrapping_add(acc, static_cast<Accumulator>(mem.template load<Bias>(io.input(kBias), c)));
        }
      }
      int32_t scaled = 0;
      if constexpr (std::is_same_v<Input, int8_t>) {
        scaled = multiply_by_quantized_multiplier(acc, multipliers[static_cast<size_t>(c)]) + output_offset;
      } else {
        scaled = multiply_by_quantized_multiplier_wide(acc, multipliers[static_cast<size_t>(c)]);
      }
      scaled = std::min(std::max(scaled, int32_t{std::numeric_limits<Input>::min()}),
                        int32_t{std::numeric_limits<Input>::max()});
      mem.template store<Input>(output, o, static_cast<Input>(scaled));
    }
  }
};

TransposeConvGeometry geometry(const OpContext& ctx, const TransposeConvParams& params) {
  const TensorRef& filter = ctx.input(kFilter);
  const TensorRef& input = ctx.input(kInput);
  const TensorRef& output = ctx.output(0);
  for (const auto& [t, what] : {std::pair{&filter, "filter"}, std::pair{&input, "input"}, std::pair{&output, "output"}}) {
    ctx.require(t->rank() == 4, fmt::format("{} {} must have 4 dimensions", what, shape_to_string(t->shape())));
  }
  ctx.require(input.dim(0) == output.dim(0),
              fmt::format("input {} and output {} differ in batches", shape_to_string(input.shape()),
                          shape_to_string(output.shape())));
  ctx.require(input.dim(3) == filter.dim(3),
              fmt::format("input {} has depth {} but filter {} takes {}", shape_to_string(input.shape()), input.dim(3),
                          shape_to_string(filter.shape()), filter.dim(3)));
  ctx.require(output.dim(3) == filter.dim(0),
              fmt::format("output {} has depth {} but filter {} gives {}", shape_to_string(output.shape()),
                          output.dim(3), shape_to_string(filter.shape()), filter.dim(0)));
  if (ctx.has_input(kBias)) {
    ctx.require(ctx.input(kBias).elements() == output.dim(3),
                fmt::format("bias has {} elements for {} output channels", ctx.input(kBias).elements(), output.dim(3)));
  }
  ctx.require(params.stride_h >= 1 && params.stride_w >= 1,
              fmt::format("strides {}x{} must be positive", params.stride_h, params.stride_w));
  TransposeConvGeometry g;
  g.batches = input.dim(0);
  g.input_height = input.dim(1);
  g.input_width = input.dim(2);
  g.input_depth = input.dim(3);
  g.filter_height = filter.dim(1);
  g.filter_width = filter.dim(2);
  g.output_height = output.dim(1);
  g.output_width = output.dim(2);
  g.output_depth = output.dim(3);
  g.stride_height = params.stride_h;
  g.stride_width = params.stride_w;
  // ComputePaddingHeightWidth with the output as the conv's input.
  const auto pad = [&](int32_t size, int32_t filter_size, int32_t stride) {
    return window_padding_before(size, filter_size, stride, 1,
                                 window_output_size(params.padding, size, filter_size, stride, 1));
  };
  g.pad_height = pad(output.dim(1), filter.dim(1), params.stride_h);
  g.pad_width = pad(output.dim(2), filter.dim(2), params.stride_w);
  return g;
}

// PopulateConvolutionQuantizationParams: one multiplier per output channel
// from input_scale * filter_scale / output_scale in double, a per-tensor
// filter scale serving every channel.
std::vector<QuantizedMultiplier> channel_multipliers(const OpContext& ctx, int64_t channels, bool wide) {
  const Quantization& input = ctx.input(kInput).tensor->quantization;
  const Quantization& filter = ctx.input(kFilter).tensor->quantization;
  const Quantization& output = ctx.output(0).tensor->quantization;
  ctx.require(input.scale.size() == 1, "quantized input needs one quantization scale");
  ctx.require(output.scale.size() == 1 && output.scale[0] > 0.0f, "quantized output needs one positive scale");
  ctx.require(filter.scale.size() == 1 || filter.scale.size() == static_cast<size_t>(channels),
              fmt::format("filter has {} scales for {} output channels", filter.scale.size(), channels));
  ctx.require(filter.zero_point.size() == filter.scale.size(),
              fmt::format("filter has {} zero points for {} scales", filter.zero_point.size(), filter.scale.size()));
  std::vector<QuantizedMultiplier> multipliers;
  for (int64_t c = 0; c < channels; ++c) {
    const double filter_scale = filter.scale[filter.scale.size() == 1 ? 0 : static_cast<size_t>(c)];
    const double real = static_cast<double>(input.scale[0]) * filter_scale / static_cast<double>(output.scale[0]);
    ctx.require(std::isfinite(real) && real >= 0.0,
                fmt::format("effective output scale {} of channel {} is not a finite non-negative number", real, c));
    multipliers.push_back(quantize_multiplier(real));
    // TFLite's 64-bit multiply takes shifts below 8 only.
    ctx.require(multipliers.back().shift < (wide ? 8 : 32),
                fmt::format("effective output scale {} of channel {} is too large", real, c));
  }
  return multipliers;
}

int32_t zero_point(const Tensor& t) {
  return t.quantization.zero_point.empty() ? 0 : static_cast<int32_t>(t.quantization.zero_point[0]);
}

template <typename Input, typename Bias>
PreparedKernel quantized_kernel(const OpContext& ctx, const TransposeConvGeometry& g) {
  TransposeConvQuantizedKernel<Input, Bias> k;
  k.g = g;
  constexpr bool kWide = std::is_same_v<Input, int16_t>;
  k.multipliers = channel_multipliers(ctx, g.output_depth, kWide);
  if constexpr (kWide) {
    ctx.require(zero_point(*ctx.input(kInput).tensor) == 0 && zero_point(*ctx.output(0).tensor) == 0,
                "INT16 input and output must have zero point 0");
  } else {
    k.input_offset = -zero_point(*ctx.input(kInput).tensor);
    k.output_offset = zero_point(*ctx.output(0).tensor);
  }
  k.scratch.resize(static_cast<size_t>(ctx.output(0).elements()));
  if constexpr (std::is_same_v<Bias, int16_t>) k.converted_bias.resize(static_cast<size_t>(g.output_depth));
  return PreparedKernel::of(std::move(k));
}

void require_bias_type(const OpContext& ctx, std::initializer_list<DataType> allowed, const char* names) {
  if (!ctx.has_input(kBias)) return;
  const DataType type = ctx.input(kBias).type();
  if (std::find(allowed.begin(), allowed.end(), type) == allowed.end()) {
    fail_unsupported_type(ctx, fmt::format("bias with {} input", data_type_name(ctx.input(kInput).type())), type,
                          names);
  }
}

}  // namespace

PreparedKernel prepare_transpose_conv(const OpContext& ctx) {
  ctx.require(ctx.inputs.size() == 3 || ctx.inputs.size() == 4,
              fmt::format("expected 3 or 4 inputs (output_shape, filter, input[, bias]), got {}", ctx.inputs.size()));
  ctx.require(ctx.has_input(kFilter) && ctx.has_input(kInput), "filter (input 1) and input (input 2) are required");
  ctx.require(ctx.outputs.size() == 1 && ctx.output(0).tensor != nullptr,
              fmt::format("expected 1 output, got {}", ctx.outputs.size()));
  const auto* params = std::get_if<TransposeConvParams>(&ctx.op->params);
  ctx.require(params != nullptr, "TransposeConvOptions are missing");
  const DataType type = ctx.input(kInput).type();
  const DataType filter_type = ctx.input(kFilter).type();
  ctx.require(ctx.output(0).type() == type, fmt::format("output type {} differs from input type {}",
                                                        data_type_name(ctx.output(0).type()), data_type_name(type)));
  const TransposeConvGeometry g = geometry(ctx, *params);
  switch (type) {
    case DataType::kFloat32:
      ctx.require(filter_type == type, fmt::format("filter type {} with FLOAT32 input is not supported (hybrid)",
                                                   data_type_name(filter_type)));
      require_bias_type(ctx, {DataType::kFloat32}, "FLOAT32");
      return PreparedKernel::of(TransposeConvFloatKernel{g, float_activation_range(params->activation)});
    case DataType::kInt8:
      ctx.require(filter_type == DataType::kInt8,
                  fmt::format("filter type {} with INT8 input is not supported; it must be INT8",
                              data_type_name(filter_type)));
      require_bias_type(ctx, {DataType::kInt32}, "INT32");
      return quantized_kernel<int8_t, int32_t>(ctx, g);
    case DataType::kInt16:
      ctx.require(filter_type == DataType::kInt8,
                  fmt::format("filter type {} with INT16 input is not supported; it must be INT8",
                              data_type_name(filter_type)));
      require_bias_type(ctx, {DataType::kInt64, DataType::kInt16}, "INT64, INT16");
      if (ctx.has_input(kBias) && ctx.input(kBias).type() == DataType::kInt16) {
        return quantized_kernel<int16_t, int16_t>(ctx, g);
      }
      return quantized_kernel<int16_t, int64_t>(ctx, g);
    default: fail_unsupported_type(ctx, "input", type, "FLOAT32, INT8, INT16");
  }
}

}  // namespace dmo

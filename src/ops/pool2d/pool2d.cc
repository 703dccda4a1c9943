// AVERAGE_POOL_2D and MAX_POOL_2D on NHWC tensors, mirroring TFLM's
// reference_ops::AveragePool / MaxPool (float, uint8) and
// reference_integer_ops::AveragePool / MaxPool (int8, int16): for batch,
// out_y, out_x, channel, a window clipped to the input (padding adds no
// taps), then one store. Average: FLOAT32 sum / count; INT8 and INT16 round
// half away from zero; UINT8 rounds half up. Then the fused activation.
#include <algorithm>
#include <cstdint>
#include <limits>

#include <fmt/format.h>

#include "../elementwise.h"
#include "dmo/ops/activation_range.h"
#include "dmo/ops/eval/pool_loops.h"
#include "dmo/ops/kernels.h"
#include "dmo/ops/padding.h"
#include "dmo/ops/walk_order.h"

namespace dmo {
namespace {

PoolGeometry pool_geometry(const OpContext& ctx) {
  require_operand_counts(ctx, 1, 1);
  require_output_type_matches_input(ctx);
  const auto* params = std::get_if<Pool2DParams>(&ctx.op->params);
  ctx.require(params != nullptr, "pooling options are missing");
  const TensorRef& in = ctx.input(0);
  const TensorRef& out = ctx.output(0);
  ctx.require(in.rank() == 4, fmt::format("input must have 4 dimensions (NHWC), got {}", shape_to_string(in.shape())));
  ctx.require(out.rank() == 4, fmt::format("output must have 4 dimensions (NHWC), got {}", shape_to_string(out.shape())));
  PoolGeometry g;
  g.batches = in.dim(0);
  g.input_height = in.dim(1);
  g.input_width = in.dim(2);
  g.depth = in.dim(3);
  g.output_height = out.dim(1);
  g.output_width = out.dim(2);
  g.stride_height = params->stride_h;
  g.stride_width = params->stride_w;
  g.filter_height = params->filter_h;
  g.filter_width = params->filter_w;
  ctx.require(g.stride_height > 0 && g.stride_width > 0 && g.filter_height > 0 && g.filter_width > 0,
              "strides and filter sizes must be positive");
  const int32_t expected_height = window_output_size(params->padding, g.input_height, g.filter_height, g.stride_height, 1);
  const int32_t expected_width = window_output_size(params->padding, g.input_width, g.filter_width, g.stride_width, 1);
  ctx.require(out.dim(0) == g.batches && out.dim(3) == g.depth && g.output_height == expected_height &&
                  g.output_width == expected_width,
              fmt::format("output shape {} does not match input shape {} pooled to {}x{}",
                          shape_to_string(out.shape()), shape_to_string(in.shape()), expected_height, expected_width));
  g.pad_height = window_padding_before(g.input_height, g.filter_height, g.stride_height, 1, g.output_height);
  g.pad_width = window_padding_before(g.input_width, g.filter_width, g.stride_width, 1, g.output_width);
  return g;
}

// Average pooling runs TFLite's kernels, which refuse a window with no input tap.
void require_taps(const OpContext& ctx, const PoolGeometry& g) {
  for (int32_t out_y = 0; out_y < g.output_height; ++out_y) {
    for (int32_t out_x = 0; out_x < g.output_width; ++out_x) {
      ctx.require(window_at(g, out_y, out_x).taps() > 0,
                  fmt::format("the window of output ({}, {}) covers no input element", out_y, out_x));
    }
  }
}

// The prepared pooling op: geometry, element type and activation range.
template <bool kAverage>
struct Pool2DKernel {
  PoolGeometry g;
  DataType type = DataType::kFloat32;
  FloatRange float_range;
  QuantizedRange quantized_range{0, 0};

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    switch (type) {
      case DataType::kInt8: return integer<int8_t>(io, mem);
      case DataType::kUInt8: return integer<uint8_t>(io, mem);
      case DataType::kInt16: return integer<int16_t>(io, mem);
      default:
        if constexpr (kAverage) return average_pool_float(io, mem, g, float_range);
        else return max_pool_float(io, mem, g, float_range);
    }
  }

  template <typename T, class Memory>
  void integer(const KernelIO& io, Memory& mem) const {
    if constexpr (kAverage) average_pool_integer<T>(io, mem, g, quantized_range);
    else max_pool_integer<T>(io, mem, g, quantized_range);
  }
};

template <bool kAverage>
PreparedKernel prepare_pool(const OpContext& ctx) {
  Pool2DKernel<kAverage> k;
  k.g = pool_geometry(ctx);
  if constexpr (kAverage) require_taps(ctx, k.g);
  k.type = ctx.input(0).type();
  switch (k.type) {
    case DataType::kFloat32: k.float_range = float_activation_range(std::get<Pool2DParams>(ctx.op->params).activation); break;
    case DataType::kInt8:
    case DataType::kUInt8:
    case DataType::kInt16: k.quantized_range = quantized_activation_range(std::get<Pool2DParams>(ctx.op->params).activation, *ctx.output(0).tensor); break;
    default: fail_unsupported_type(ctx, "input", k.type, "FLOAT32, INT8, UINT8, INT16");
  }
  // int8, uint8 and float32 pools run on devices (int16 does not).
  std::shared_ptr<DeviceKernel> device;
  if (k.type == DataType::kInt8 || k.type == DataType::kUInt8 || k.type == DataType::kFloat32) {
    device = std::make_shared<DeviceKernel>();
    device->loops = kAverage ? DeviceLoops::kAveragePool : DeviceLoops::kMaxPool;
    device->type = k.type;
    device->pool = k.g;
    device->pool_range = k.quantized_range;
    device->float_range = k.float_range;
  }
  PreparedKernel p = PreparedKernel::of(std::move(k));
  p.device = std::move(device);
  return p;
}

}  // namespace

PreparedKernel prepare_average_pool_2d(const OpContext& ctx) { return prepare_pool<true>(ctx); }
PreparedKernel prepare_max_pool_2d(const OpContext& ctx) { return prepare_pool<false>(ctx); }

}  // namespace dmo

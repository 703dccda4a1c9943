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
#include "dmo/ops/kernels.h"
#include "dmo/ops/padding.h"
#include "dmo/ops/walk_order.h"

namespace dmo {
namespace {

struct PoolGeometry {
  int32_t batches = 0, input_height = 0, input_width = 0, depth = 0;
  int32_t output_height = 0, output_width = 0;
  int32_t stride_height = 1, stride_width = 1, filter_height = 1, filter_width = 1;
  int32_t pad_height = 0, pad_width = 0;
  Activation activation = Activation::kNone;
};

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
  g.activation = params->activation;
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

// The window of output (out_y, out_x) clipped to the input: filter rows
// [y_start, y_end) and columns [x_start, x_end) from input origin (in_y, in_x).
struct Window {
  int32_t in_y, in_x, y_start, y_end, x_start, x_end;
  int32_t taps() const { return std::max(0, y_end - y_start) * std::max(0, x_end - x_start); }
};

Window window_at(const PoolGeometry& g, int32_t out_y, int32_t out_x) {
  Window w;
  w.in_x = out_x * g.stride_width - g.pad_width;
  w.in_y = out_y * g.stride_height - g.pad_height;
  w.x_start = std::max(0, -w.in_x);
  w.x_end = std::min(g.filter_width, g.input_width - w.in_x);
  w.y_start = std::max(0, -w.in_y);
  w.y_end = std::min(g.filter_height, g.input_height - w.in_y);
  return w;
}

// Runs `reduce(element loader, window)` for each output element in TFLite's
// order and stores its result there.
template <typename T, class Memory, class Reduce>
void pool(const KernelIO& io, Memory& mem, const PoolGeometry& g, Reduce&& reduce) {
  const TensorRef& in = io.input(0);
  const TensorRef& out = io.output(0);
  const bool descending = io.descending;  // every output loop backwards (walk_order.h)
  const IndexRange rows = io.region.rows(g.output_height);
  const IndexRange cols = io.region.cols(g.output_width);
  for (int32_t bi = 0; bi < g.batches; ++bi) {
    const int32_t b = walk_index(bi, g.batches, descending);
    for (int32_t yi = 0; yi < rows.size(); ++yi) {
      const int32_t out_y = walk_index(yi, rows, descending);
      for (int32_t xi = 0; xi < cols.size(); ++xi) {
        const int32_t out_x = walk_index(xi, cols, descending);
        const Window w = window_at(g, out_y, out_x);
        for (int32_t ci = 0; ci < g.depth; ++ci) {
          const int32_t c = walk_index(ci, g.depth, descending);
          auto load = [&](int32_t fy, int32_t fx) {
            const int64_t y = w.in_y + fy, x = w.in_x + fx;
            return mem.template load<T>(in, ((b * int64_t{g.input_height} + y) * g.input_width + x) * g.depth + c);
          };
          const int64_t o = ((b * int64_t{g.output_height} + out_y) * g.output_width + out_x) * g.depth + c;
          mem.template store<T>(out, o, reduce(load, w));
        }
      }
    }
  }
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

template <typename T, class Memory>
void average_pool_integer(const KernelIO& io, Memory& mem, const PoolGeometry& g, const QuantizedRange& r) {
  pool<T>(io, mem, g, [&r](auto&& load, const Window& w) {
    int32_t acc = 0;
    int32_t count = 0;
    for (int32_t fy = w.y_start; fy < w.y_end; ++fy) {
      for (int32_t fx = w.x_start; fx < w.x_end; ++fx) {
        acc += load(fy, fx);
        ++count;
      }
    }
    if constexpr (std::is_same_v<T, uint8_t>) {
      acc = (acc + count / 2) / count;
    } else {
      acc = acc > 0 ? (acc + count / 2) / count : (acc - count / 2) / count;
    }
    return static_cast<T>(std::min(std::max(acc, r.min), r.max));
  });
}

template <typename T, class Memory>
void max_pool_integer(const KernelIO& io, Memory& mem, const PoolGeometry& g, const QuantizedRange& r) {
  pool<T>(io, mem, g, [&r](auto&& load, const Window& w) {
    // uint8 starts at 0, the signed types at their lowest value.
    T max = std::numeric_limits<T>::lowest();
    for (int32_t fy = w.y_start; fy < w.y_end; ++fy) {
      for (int32_t fx = w.x_start; fx < w.x_end; ++fx) max = std::max(max, static_cast<T>(load(fy, fx)));
    }
    max = std::max<T>(max, static_cast<T>(r.min));
    max = std::min<T>(max, static_cast<T>(r.max));
    return max;
  });
}

template <class Memory>
void average_pool_float(const KernelIO& io, Memory& mem, const PoolGeometry& g, const FloatRange& r) {
  pool<float>(io, mem, g, [&r](auto&& load, const Window& w) {
    float total = 0.f;
    float filter_count = 0;
    for (int32_t fy = w.y_start; fy < w.y_end; ++fy) {
      for (int32_t fx = w.x_start; fx < w.x_end; ++fx) {
        total += load(fy, fx);
        filter_count++;
      }
    }
    const float average = total / filter_count;
    return std::min(std::max(average, r.min), r.max);
  });
}

template <class Memory>
void max_pool_float(const KernelIO& io, Memory& mem, const PoolGeometry& g, const FloatRange& r) {
  pool<float>(io, mem, g, [&r](auto&& load, const Window& w) {
    float max = std::numeric_limits<float>::lowest();
    for (int32_t fy = w.y_start; fy < w.y_end; ++fy) {
      for (int32_t fx = w.x_start; fx < w.x_end; ++fx) max = std::max(max, load(fy, fx));
    }
    return std::min(std::max(max, r.min), r.max);
  });
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
    case DataType::kFloat32: k.float_range = float_activation_range(k.g.activation); break;
    case DataType::kInt8:
    case DataType::kUInt8:
    case DataType::kInt16: k.quantized_range = quantized_activation_range(k.g.activation, *ctx.output(0).tensor); break;
    default: fail_unsupported_type(ctx, "input", k.type, "FLOAT32, INT8, UINT8, INT16");
  }
  return PreparedKernel::of(std::move(k));
}

}  // namespace

PreparedKernel prepare_average_pool_2d(const OpContext& ctx) { return prepare_pool<true>(ctx); }
PreparedKernel prepare_max_pool_2d(const OpContext& ctx) { return prepare_pool<false>(ctx); }

}  // namespace dmo

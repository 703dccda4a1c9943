// AVERAGE_POOL_2D's and MAX_POOL_2D's loop nest, mirroring TFLM's
// reference_ops / reference_integer_ops AveragePool and MaxPool: batch,
// out y, out x, channel, a window clipped to the input (padding adds no
// taps), then one store (src/ops/pool2d/pool2d.cc prepares it).
// Freestanding: shared by the host kernel and generated device code.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "dmo/ops/eval/value_range.h"
#include "dmo/ops/eval/walk_index.h"
#include "dmo/ops/output_region.h"

namespace dmo {

struct PoolGeometry {
  int32_t batches = 0, input_height = 0, input_width = 0, depth = 0;
  int32_t output_height = 0, output_width = 0;
  int32_t stride_height = 1, stride_width = 1, filter_height = 1, filter_width = 1;
  int32_t pad_height = 0, pad_width = 0;
};

// The window of output (out_y, out_x) clipped to the input: filter rows
// [y_start, y_end) and columns [x_start, x_end) from input origin (in_y, in_x).
struct Window {
  int32_t in_y, in_x, y_start, y_end, x_start, x_end;
  int32_t taps() const { return std::max(int32_t{0}, y_end - y_start) * std::max(int32_t{0}, x_end - x_start); }
};

inline Window window_at(const PoolGeometry& g, int32_t out_y, int32_t out_x) {
  Window w;
  w.in_x = out_x * g.stride_width - g.pad_width;
  w.in_y = out_y * g.stride_height - g.pad_height;
  w.x_start = std::max(int32_t{0}, -w.in_x);
  w.x_end = std::min(g.filter_width, g.input_width - w.in_x);
  w.y_start = std::max(int32_t{0}, -w.in_y);
  w.y_end = std::min(g.filter_height, g.input_height - w.in_y);
  return w;
}

// Runs `reduce(element loader, window)` for each output element in TFLite's
// order and stores its result there.
template <typename T, class IO, class Memory, class Reduce>
void pool(const IO& io, Memory& mem, const PoolGeometry& g, Reduce&& reduce) {
  const auto& in = io.input(0);
  const auto& out = io.output(0);
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

template <typename T, class IO, class Memory>
void average_pool_integer(const IO& io, Memory& mem, const PoolGeometry& g, const QuantizedRange& r) {
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

template <typename T, class IO, class Memory>
void max_pool_integer(const IO& io, Memory& mem, const PoolGeometry& g, const QuantizedRange& r) {
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

template <class IO, class Memory>
void average_pool_float(const IO& io, Memory& mem, const PoolGeometry& g, const FloatRange& r) {
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

template <class IO, class Memory>
void max_pool_float(const IO& io, Memory& mem, const PoolGeometry& g, const FloatRange& r) {
  pool<float>(io, mem, g, [&r](auto&& load, const Window& w) {
    float max = std::numeric_limits<float>::lowest();
    for (int32_t fy = w.y_start; fy < w.y_end; ++fy) {
      for (int32_t fx = w.x_start; fx < w.x_end; ++fx) max = std::max(max, load(fy, fx));
    }
    return std::min(std::max(max, r.min), r.max);
  });
}

}  // namespace dmo

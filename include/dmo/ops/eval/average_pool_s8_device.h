// dmo's int8 AVERAGE_POOL_2D for devices: the reference nest's order
// (pool_loops.h: per output pixel, per channel in the walk's order, read
// its window clipped to the input, store) with pointers instead of an
// element index per load, so its safe overlap is the reference's. Results
// are the reference's bit for bit. Freestanding.
#pragma once

#include <cstdint>

#include "dmo/ops/eval/device_access.h"
#include "dmo/ops/eval/nhwc_layout.h"
#include "dmo/ops/eval/pool_loops.h"
#include "dmo/ops/eval/walk_index.h"

namespace dmo {

// Whether average_pool_s8_device computes this op: channels adjacent in storage.
template <class IO>
bool average_pool_s8_device_applies(const IO& io) {
  const auto& in = io.input(0);
  const auto& out = io.output(0);
  return (in.strides == nullptr || in.strides[3] == 1) && (out.strides == nullptr || out.strides[3] == 1);
}

template <class IO, class Access = DirectAccess>
void average_pool_s8_device(const PoolGeometry& g, const QuantizedRange& r, const IO& io, Access access = {}) {
  const auto* input = reinterpret_cast<const int8_t*>(io.input(0).data);
  auto* output = reinterpret_cast<int8_t*>(io.output(0).data);
  const NhwcLayout in = NhwcLayout::of(io.input(0));
  const NhwcLayout out = NhwcLayout::of(io.output(0));
  const bool descending = io.descending;
  const IndexRange rows = io.region.rows(g.output_height);
  const IndexRange cols = io.region.cols(g.output_width);
  for (int32_t bi = 0; bi < g.batches; ++bi) {
    const int32_t b = walk_index(bi, g.batches, descending);
    for (int32_t yi = 0; yi < rows.size(); ++yi) {
      const int32_t out_y = walk_index(yi, rows, descending);
      for (int32_t xi = 0; xi < cols.size(); ++xi) {
        const int32_t out_x = walk_index(xi, cols, descending);
        const Window w = window_at(g, out_y, out_x);
        const int32_t count = w.taps();
        const int8_t* first = input + in.pixel(b, w.in_y + w.y_start, w.in_x + w.x_start);
        int8_t* pixel = output + out.pixel(b, out_y, out_x);
        for (int32_t ci = 0; ci < g.depth; ++ci) {
          const int32_t c = walk_index(ci, g.depth, descending);
          int32_t acc = 0;
          const int8_t* row = first + c;
          for (int32_t fy = w.y_start; fy < w.y_end; ++fy, row += in.row) {
            const int8_t* at = row;
            for (int32_t fx = w.x_start; fx < w.x_end; ++fx, at += in.col) acc += access.load(0, at);
          }
          acc = acc > 0 ? (acc + count / 2) / count : (acc - count / 2) / count;
          acc = acc < r.min ? r.min : acc;
          acc = acc > r.max ? r.max : acc;
          access.store(pixel + c, static_cast<int8_t>(acc));
        }
      }
    }
  }
}

}  // namespace dmo

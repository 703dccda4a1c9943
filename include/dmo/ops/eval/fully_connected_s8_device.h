// dmo's int8 FULLY_CONNECTED for devices: per batch row, the input row is
// read once into a column (int16, zero point removed), then every unit is
// its inner product with one weight row, four units at a time
// (s8_dot_rows.h; the rows packed by pack_weight_rows), and the row's
// units are stored. Every store of a row
// follows every read of it and precedes the next row's reads, as in the
// reference nest (fully_connected_loops.h, per unit: read the row,
// store), so a layout safe for the reference order is safe here. Results
// are the reference's bit for bit. Freestanding.
#pragma once

#include <cstdint>

#include "dmo/ops/eval/conv_s8_device.h"
#include "dmo/ops/eval/fully_connected_loops.h"
#include "dmo/ops/eval/s8_dot_rows.h"

namespace dmo {

// Whether fully_connected_s8_device computes this op: dense operands.
template <class IO>
bool fully_connected_s8_device_applies(const IO& io) {
  return io.input(0).strides == nullptr && io.input(1).strides == nullptr && io.output(0).strides == nullptr;
}

// The kernel for one kind of output stage (device_requantize.h), as
// generated code names it.
template <StageForm kForm, bool kFullRange, class Requantization, class IO, class Access = DirectAccess>
void fully_connected_s8_device_staged(const FullyConnectedGeometry& g, const Requantization& q, const IO& io,
                                      ChannelStages stages, Access access = {}) {
  const auto* input = reinterpret_cast<const int8_t*>(io.input(0).data);
  const auto* weights = reinterpret_cast<const int8_t*>(io.input(1).data);
  auto* output = reinterpret_cast<int8_t*>(io.output(0).data);
  const int32_t depth = g.accum_depth;
  const DotRowsOutput rows_out{weights, g.units, depth, stages, q.output_offset, q.range.min, q.range.max};
  for (int64_t batch = 0; batch < g.batches; ++batch) {
    const Int8Column<Access> row{input + batch * depth, q.input_offset, dsp::splat_pair(q.input_offset), access};
    // (w + filter_offset) . row = w . row + filter_offset * sum(row)
    int32_t offset_term = 0;
    if (q.filter_offset != 0) {
      int32_t row_sum = 0;
      for (int32_t k = 0; k < depth; ++k) row_sum += row.at(k);
      offset_term = static_cast<int32_t>(static_cast<uint32_t>(q.filter_offset) * static_cast<uint32_t>(row_sum));
    }
    dot_rows_to_s8_staged<kForm, kFullRange>(row, offset_term, rows_out, output + batch * g.units, access);
  }
}

// Any kind of output stage, chosen once per call.
template <class Requantization, class IO, class Access = DirectAccess>
void fully_connected_s8_device(const FullyConnectedGeometry& g, const Requantization& q, const IO& io,
                               ChannelStages stages, Access access = {}) {
  with_output_stage(stages.form, q.range.min, q.range.max, [&]<StageForm kForm, bool kFullRange>() {
    fully_connected_s8_device_staged<kForm, kFullRange>(g, q, io, stages, access);
  });
}

}  // namespace dmo

#include "dmo/ops/device_tables.h"

#include <cstring>

#include "dmo/ops/eval/conv_s8_device.h"
#include "dmo/ops/eval/depthwise_s8_device.h"

namespace dmo {

namespace {

const int8_t* filter_values(const Subgraph& sg, const Op& op) {
  return reinterpret_cast<const int8_t*>(sg.tensors[static_cast<size_t>(op.inputs[1])].data.data());
}

}  // namespace

std::vector<int8_t> device_packed_rows(const Subgraph& sg, const Op& op, const DeviceKernel& k) {
  const bool conv = k.loops == DeviceLoops::kConv;
  const int32_t rows = conv ? k.conv.output_depth : k.fully_connected.units;
  const int32_t depth = conv ? conv_column_depth(k.conv) : k.fully_connected.accum_depth;
  const int8_t* values = filter_values(sg, op);
  if (conv && conv_reads_windows_in_place(k.conv, k.requantization.filter_offset)) {
    // Widened to int16 pairs: twice the bytes.
    std::vector<int8_t> widened(static_cast<size_t>(int64_t{rows} * depth * 2));
    std::vector<int16_t> pairs(static_cast<size_t>(int64_t{rows} * depth));
    pack_window_rows(values, rows, k.conv.filter_height, k.conv.filter_width * k.conv.filter_depth, pairs.data());
    std::memcpy(widened.data(), pairs.data(), widened.size());
    return widened;
  }
  std::vector<int8_t> packed(static_cast<size_t>(int64_t{rows} * depth));
  pack_weight_rows(values, rows, depth, packed.data());
  return packed;
}

std::vector<int32_t> device_row_terms(const Subgraph& sg, const Op& op, const DeviceKernel& k) {
  const ConvGeometry& g = k.conv;
  if (k.loops != DeviceLoops::kConv || !conv_reads_input_in_place(g, k.requantization.filter_offset)) return {};
  std::vector<int32_t> terms(static_cast<size_t>(g.output_depth));
  weight_row_terms(filter_values(sg, op), g.output_depth, conv_column_depth(g), k.requantization.input_offset,
                   terms.data());
  return terms;
}

std::vector<int32_t> device_window_terms(const Subgraph& sg, const Op& op, const DeviceKernel& k) {
  if (k.requantization.filter_offset != 0) return {};
  const DepthwiseGeometry& g = k.depthwise;
  std::vector<int32_t> terms(static_cast<size_t>(g.output_depth));
  depthwise_window_terms(filter_values(sg, op), g.filter_height * g.filter_width, g.output_depth,
                         k.requantization.input_offset, terms.data());
  return terms;
}

std::vector<int8_t> device_packed_windows(const Subgraph& sg, const Op& op, const DeviceKernel& k) {
  const DepthwiseGeometry& g = k.depthwise;
  const bool unrolled = g.depth_multiplier == 1 ? g.output_depth >= 4 : g.depth_multiplier % 4 == 0;
  if (g.filter_height != 3 || g.filter_width != 3 || k.requantization.filter_offset != 0 || !unrolled) return {};
  std::vector<int8_t> packed(static_cast<size_t>(packed_window_bytes(g.output_depth, g.depth_multiplier)));
  pack_windows_3x3(filter_values(sg, op), g.output_depth, g.depth_multiplier, packed.data());
  return packed;
}

}  // namespace dmo

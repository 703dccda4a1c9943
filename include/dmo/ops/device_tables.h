// The constant tables dmo's int8 device kernels read besides an op's own
// tensors, built from its filter: weight rows packed four by four (CONV_2D,
// FULLY_CONNECTED), a 1x1 conv's per-row zero-point terms, a depthwise conv's per-channel window terms and its
// 3x3 filter packed per four channels. Generated code keeps them in flash;
// the dmo-device kernel family (ops/kernel_family.h) builds the same ones
// on the host, so both run the same paths.
#pragma once

#include <cstdint>
#include <vector>

#include "dmo/model/graph.h"
#include "dmo/ops/device_kernel.h"

namespace dmo {

// The filter of a conv-like op as its device kernel reads it: rows packed
// by pack_weight_rows (conv and fully connected: output channels by their
// weights' depth), or, where a conv reads its windows in place, widened
// to int16 by pack_window_rows (twice the bytes).
std::vector<int8_t> device_packed_rows(const Subgraph& sg, const Op& op, const DeviceKernel& k);

// weight_row_terms of a conv whose device kernel reads its input in place
// (conv_reads_input_in_place); empty for every other conv, which then
// takes its column buffers.
std::vector<int32_t> device_row_terms(const Subgraph& sg, const Op& op, const DeviceKernel& k);

// depthwise_window_terms of a depthwise conv whose filter has no zero
// point; empty otherwise (the kernel then takes no table).
std::vector<int32_t> device_window_terms(const Subgraph& sg, const Op& op, const DeviceKernel& k);

// pack_windows_3x3 of a depthwise conv with a 3x3 filter without zero
// point whose unrolled path runs (depth multiplier 1 and at least four
// channels, or a multiplier of four or more); empty otherwise.
std::vector<int8_t> device_packed_windows(const Subgraph& sg, const Op& op, const DeviceKernel& k);

}  // namespace dmo

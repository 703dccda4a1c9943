// Requantization of the quantized conv-like ops (CONV_2D, DEPTHWISE_CONV_2D,
// FULLY_CONNECTED), computed once per op before the loops, the way TFLite
// Micro prepares these ops:
//  - int8 conv and depthwise conv: one multiplier per output channel from
//    (double)input_scale * (double)filter_scale / (double)output_scale, a
//    per-tensor filter scale broadcast; the filter zero point is ignored
//    (int8 weights are symmetric).
//  - uint8 ops and int8 fully connected with per-tensor weights: one
//    multiplier from the float product input_scale * filter_scale divided in
//    double by output_scale (GetQuantizedConvolutionMultipler); the filter
//    zero point is applied.
#pragma once

#include <cstdint>
#include <vector>

#include "dmo/model/op_params.h"
#include "dmo/ops/activation_range.h"
#include "dmo/ops/device_kernel.h"
#include "dmo/ops/fixed_point.h"
#include "dmo/ops/op_context.h"

namespace dmo {

struct ConvRequantization {
  int32_t input_offset = 0;   // -input zero point
  int32_t filter_offset = 0;  // -filter zero point, 0 where TFLite ignores it
  int32_t output_offset = 0;  // output zero point
  std::vector<QuantizedMultiplier> multipliers;  // one per output channel
  QuantizedRange range{0, 0};
};

// Inputs 0 (activations) and 1 (filter) and output 0 of `ctx`.
// `quantized_dimension` is the filter dimension of the output channels.
ConvRequantization per_channel_requantization(const OpContext& ctx, Activation activation, int32_t channels,
                                              int32_t quantized_dimension);

ConvRequantization per_tensor_requantization(const OpContext& ctx, Activation activation, int32_t channels);

// The same values for generated device code (ops/device_kernel.h).
inline DeviceRequantization device_requantization(const ConvRequantization& q) {
  return {q.input_offset, q.filter_offset, q.output_offset, q.multipliers, q.range};
}

}  // namespace dmo

#include "dmo/ops/device_channel_stages.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>

namespace dmo {

namespace {

// Per output channel, the sum of |weight + filter_offset| over its taps.
std::vector<int64_t> weight_magnitudes(const Tensor& filter, const DeviceKernel& k, size_t channels) {
  const auto* w = reinterpret_cast<const int8_t*>(filter.data.data());
  const int64_t filter_offset = k.requantization.filter_offset;
  auto magnitude = [&](int64_t at) { return std::abs(w[at] + filter_offset); };
  std::vector<int64_t> sums(channels, 0);
  if (k.loops == DeviceLoops::kDepthwiseConv) {
    const int64_t taps = int64_t{k.depthwise.filter_height} * k.depthwise.filter_width;
    for (size_t c = 0; c < channels; ++c) {
      for (int64_t t = 0; t < taps; ++t) sums[c] += magnitude(t * static_cast<int64_t>(channels) + static_cast<int64_t>(c));
    }
    return sums;
  }
  // CONV_2D and FULLY_CONNECTED: one contiguous row per output channel.
  const int64_t depth = k.loops == DeviceLoops::kConv ? conv_column_depth(k.conv) : k.fully_connected.accum_depth;
  for (size_t c = 0; c < channels; ++c) {
    for (int64_t i = 0; i < depth; ++i) sums[c] += magnitude(static_cast<int64_t>(c) * depth + i);
  }
  return sums;
}

// The one output a channel gives for every sum before the bias within
// [-sum_bound, sum_bound], if it gives one: the output stage is monotonic
// in the sum while the shifted total stays within int32, so the two ends
// decide.
std::optional<int32_t> constant_output(int32_t bias, QuantizedMultiplier m, int64_t sum_bound,
                                       const DeviceRequantization& q) {
  const int32_t left = m.shift > 0 ? m.shift : 0;
  auto output = [&](int64_t total) -> std::optional<int32_t> {
    if (left >= 31 || total < -(int64_t{1} << (31 - left)) || total >= (int64_t{1} << (31 - left))) return std::nullopt;
    const int32_t value = multiply_by_quantized_multiplier(static_cast<int32_t>(total), m) + q.output_offset;
    return std::clamp(value, q.range.min, q.range.max);
  };
  const std::optional<int32_t> low = output(int64_t{bias} - sum_bound), high = output(int64_t{bias} + sum_bound);
  if (!low || !high || *low != *high) return std::nullopt;
  return low;
}

}  // namespace

std::optional<DeviceChannelStages> device_channel_stages(const Subgraph& sg, const Op& op, const DeviceKernel& k) {
  const DeviceRequantization& q = k.requantization;
  const size_t channels = q.multipliers.size();
  const Tensor& filter = sg.tensors[static_cast<size_t>(op.inputs[1])];
  if (filter.data.size() != static_cast<size_t>(filter.element_count) || filter.element_count <= 0) return std::nullopt;
  const Tensor* bias =
      op.inputs.size() > 2 && op.inputs[2] >= 0 ? &sg.tensors[static_cast<size_t>(op.inputs[2])] : nullptr;
  if (bias != nullptr && bias->data.size() < channels * sizeof(int32_t)) return std::nullopt;
  // The largest |x + input_offset| over int8 inputs x.
  const int64_t input_magnitude = std::max(std::abs(int64_t{q.input_offset} - 128), std::abs(int64_t{q.input_offset} + 127));
  const std::vector<int64_t> magnitudes = weight_magnitudes(filter, k, channels);
  std::vector<int32_t> biases(channels, 0);
  if (bias != nullptr) std::memcpy(biases.data(), bias->data.data(), channels * sizeof(int32_t));
  // Per channel: the bounded form fits, or the output is one value, or
  // the whole table takes the general form. A bounded table whose every
  // other channel folds (channel_stage_folds) takes kFolded.
  DeviceChannelStages stages;
  std::vector<std::optional<int32_t>> constant(channels);
  bool folds = true;
  for (size_t c = 0; c < channels; ++c) {
    const int64_t sum_bound = input_magnitude * magnitudes[c];
    if (channel_stage_fits(biases[c], q.multipliers[c], sum_bound)) {
      folds = folds && channel_stage_folds(q.multipliers[c]);
      continue;
    }
    constant[c] = constant_output(biases[c], q.multipliers[c], sum_bound, q);
    if (!constant[c]) stages.form = StageForm::kGeneral;
  }
  if (stages.form == StageForm::kBounded && folds) stages.form = StageForm::kFolded;
  stages.table.reserve(channels);
  for (size_t c = 0; c < channels; ++c) {
    stages.table.push_back(constant[c] ? constant_channel_stage(*constant[c], q.output_offset, stages.form)
                                       : channel_stage(biases[c], q.multipliers[c], stages.form, q.output_offset));
  }
  return stages;
}

}  // namespace dmo

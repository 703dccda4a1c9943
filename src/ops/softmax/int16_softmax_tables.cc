#include "int16_softmax_tables.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dmo {

Int16Table populate_int16_table(float input_scale, int32_t input_zero_point, float output_scale,
                                int32_t output_zero_point, float (*transform)(float)) {
  constexpr int32_t kMin = std::numeric_limits<int16_t>::min();
  constexpr int32_t kMax = std::numeric_limits<int16_t>::max();
  // Every step in float, in TFLite's order of operations: the table's
  // entries depend on each rounding.
  const float input_min = input_scale * static_cast<float>(kMin - input_zero_point);
  const float input_max = input_scale * static_cast<float>(kMax - input_zero_point);
  const float output_min = output_scale * static_cast<float>(kMin - output_zero_point);
  const float output_max = output_scale * static_cast<float>(kMax - output_zero_point);
  constexpr int kSteps = 512;
  const float step = (input_max - input_min) / static_cast<float>(kSteps);
  const float half_step = step / 2;
  const float output_scaling_inv = static_cast<float>(kMax - kMin + 1) / (output_max - output_min);
  const auto table_min = static_cast<float>(kMin);
  const auto table_max = static_cast<float>(kMax);

  Int16Table table{};
  for (int i = 0; i < kSteps; ++i) {
    const float at = input_min + static_cast<float>(i) * step;
    const float value = transform(at);
    const float value_midpoint = transform(at + half_step);
    const float value_next = transform(input_min + static_cast<float>(i + 1) * step);
    // Each entry is biased by half the error of linear interpolation at the
    // midpoint, so the interpolated lookup errs evenly.
    const float sample = std::round(value * output_scaling_inv);
    const float midpoint_interpolated = std::round((value_next * output_scaling_inv + std::round(value * output_scaling_inv)) / 2);
    const float midpoint = std::round(value_midpoint * output_scaling_inv);
    const float bias = std::round((midpoint_interpolated - midpoint) / 2);
    table[static_cast<size_t>(i)] = static_cast<int16_t>(std::min(std::max(sample - bias, table_min), table_max));
  }
  table[kSteps] = static_cast<int16_t>(
      std::min(std::max(std::round(transform(input_max) * output_scaling_inv), table_min), table_max));
  return table;
}

namespace {

// TFLM's SoftmaxPrepare: inputs [-65535, 0] * 10 / 65535 for exp and
// [0, 65535] / 65535 for 1 / (1 + x), outputs [-32768, 32767] * 2 / 65535.
constexpr float kRange = 65535.0f;

float exp_of(float x) { return std::exp(x); }
float one_over_one_plus(float x) { return 1.0f / (1.0f + x); }

}  // namespace

const Int16Table& int16_softmax_exp_table() {
  static const Int16Table table = populate_int16_table(10.0f / kRange, 32767, 2.0f / kRange, 0, &exp_of);
  return table;
}

const Int16Table& int16_softmax_one_over_one_plus_x_table() {
  static const Int16Table table = populate_int16_table(1.0f / kRange, -32768, 2.0f / kRange, 0, &one_over_one_plus);
  return table;
}

QuantizedMultiplier int16_softmax_input_multiplier(float input_scale, float beta) {
  return quantize_multiplier(static_cast<double>(input_scale) * static_cast<double>(beta) / (10.0 / 65535.0));
}

}  // namespace dmo

// A building block of test graphs: one 3x3 int8 CONV_2D with weights and
// biases made from a seed, as the schedule and concatenation tests use it.
#pragma once

#include <string>
#include <vector>

#include "dmo/zoo/graph_builder.h"

namespace dmo::test {

// A 3x3 convolution of `input` (`in_depth` channels) to a new tensor of
// `shape` quantized as `quant`; the seed varies the weights.
inline int32_t add_int8_conv3x3(GraphBuilder& b, const std::string& name, int32_t input, int32_t in_depth,
                                const Shape& shape, Padding padding, int8_t seed, const Quantization& quant) {
  const int32_t depth = shape[3];
  std::vector<int8_t> weights(static_cast<size_t>(depth * 3 * 3 * in_depth));
  for (size_t i = 0; i < weights.size(); ++i) weights[i] = static_cast<int8_t>((i * 37 + static_cast<size_t>(seed)) % 23 - 11);
  std::vector<float> scales(static_cast<size_t>(depth), 0.02f);
  const int32_t filter = b.add_constant_values(name + "_filter", DataType::kInt8, {depth, 3, 3, in_depth}, weights,
                                               Quantization{scales, std::vector<int64_t>(scales.size(), 0), 0});
  std::vector<int32_t> bias(static_cast<size_t>(depth));
  for (size_t i = 0; i < bias.size(); ++i) bias[i] = static_cast<int32_t>(i * 7) - 20;
  const int32_t bias_tensor = b.add_constant_values(name + "_bias", DataType::kInt32, {depth}, bias,
                                                    Quantization{std::vector<float>(bias.size(), 0.001f),
                                                                 std::vector<int64_t>(bias.size(), 0), 0});
  const int32_t out = b.add_tensor(name, DataType::kInt8, shape, quant);
  Conv2DParams params;
  params.padding = padding;
  b.add_op(OpKind::kConv2D, {input, filter, bias_tensor}, {out}, params);
  return out;
}

}  // namespace dmo::test

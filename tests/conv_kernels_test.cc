// CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED kernels: hand-computed
// results for every supported type (rounding, saturation, padding, groups,
// depth multipliers, batches), the errors for what they do not run, the
// algorithmic safe overlap their loop order gives, and every such op of the
// golden models run alone on TFLM's recorded inputs.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "dmo/error.h"
#include "dmo/ops/kernels.h"
#include "dmo/runtime/interpreter.h"
#include "dmo/ops/memory_policy.h"
#include "dmo/tflite/reader.h"
#include "dmo/zoo/graph_builder.h"
#include "dmo/zoo/zoo.h"
#include "test_support.h"

namespace dmo {
namespace {

using test::bytes_of;
using test::per_tensor;
using test::values_from;

// A one-op graph: activation input 0, constant filter and (optional) bias,
// activation output. The op's input and output tensors are 0 and the last.
struct OneOpModel {
  Graph graph;
  int32_t input = 0;
  int32_t output = 0;
};

template <typename In, typename Bias>
OneOpModel one_op_model(OpKind kind, OpParams params, DataType type, const Shape& input_shape,
                        Quantization input_quant, const Shape& filter_shape, const std::vector<In>& filter,
                        Quantization filter_quant, DataType bias_type, const std::vector<Bias>& bias,
                        const Shape& output_shape, Quantization output_quant) {
  GraphBuilder b("conv_kernels_test");
  OneOpModel m;
  m.input = b.add_tensor("input", type, input_shape, std::move(input_quant));
  const int32_t weights = b.add_constant_values<In>("filter", type, filter_shape, filter, std::move(filter_quant));
  int32_t bias_tensor = kNoTensor;
  if (!bias.empty()) {
    bias_tensor = b.add_constant_values<Bias>("bias", bias_type, {static_cast<int32_t>(bias.size())}, bias);
  }
  m.output = b.add_tensor("output", type, output_shape, std::move(output_quant));
  std::vector<int32_t> inputs = {m.input, weights};
  if (bias_tensor != kNoTensor) inputs.push_back(bias_tensor);
  b.add_op(kind, inputs, {m.output}, std::move(params));
  b.set_inputs({m.input});
  b.set_outputs({m.output});
  m.graph = b.finish();
  return m;
}

// Runs the model unshared on `input`, also with the checking policy, which
// must find no clobber; returns the output values.
template <typename Out, typename In>
std::vector<Out> run_model(const OneOpModel& m, const std::vector<In>& input) {
  Interpreter checked(m.graph, unshared_placement(m.graph.main()));
  checked.set_inputs(bytes_of(input));
  EXPECT_FALSE(checked.run_checked().has_value());
  Interpreter interpreter(m.graph, unshared_placement(m.graph.main()));
  interpreter.set_inputs(bytes_of(input));
  interpreter.run();
  const std::vector<Out> direct = values_from<Out>(interpreter.tensor_bytes(m.output));
  EXPECT_EQ(direct, values_from<Out>(checked.tensor_bytes(m.output))) << "checking policy computes differently";
  return direct;
}

Conv2DParams conv_params(Padding padding, int32_t stride, Activation activation = Activation::kNone,
                         int32_t dilation = 1) {
  Conv2DParams p;
  p.padding = padding;
  p.stride_h = p.stride_w = stride;
  p.dilation_h = p.dilation_w = dilation;
  p.activation = activation;
  return p;
}

DepthwiseConv2DParams depthwise_params(Padding padding, int32_t stride, int32_t multiplier,
                                       Activation activation = Activation::kNone) {
  DepthwiseConv2DParams p;
  p.padding = padding;
  p.stride_h = p.stride_w = stride;
  p.depth_multiplier = multiplier;
  p.activation = activation;
  return p;
}

FullyConnectedParams fc_params(Activation activation = Activation::kNone) {
  FullyConnectedParams p;
  p.activation = activation;
  return p;
}

const std::vector<float> kNoFloatBias;
const std::vector<int32_t> kNoIntBias;

// ---------------------------------------------------------------- CONV_2D

TEST(Conv2DKernel, FloatValidWithBias) {
  // 3x3 input 1..9, 2x2 filter [1 2; 3 4], bias 0.5: each output is the
  // window dot product plus 0.5.
  auto m = one_op_model<float, float>(OpKind::kConv2D, conv_params(Padding::kValid, 1), DataType::kFloat32,
                                      {1, 3, 3, 1}, {}, {1, 2, 2, 1}, {1, 2, 3, 4}, {}, DataType::kFloat32, {0.5f},
                                      {1, 2, 2, 1}, {});
  EXPECT_EQ(run_model<float>(m, std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9}),
            (std::vector<float>{37.5f, 47.5f, 67.5f, 77.5f}));
}

TEST(Conv2DKernel, FloatSamePaddingSkipsTapsOutsideTheImage) {
  // 3x3 all-ones filter, stride 2 on 4x4: total padding 1, before 0, so the
  // last row/column of windows hangs over the edge and sees fewer taps.
  std::vector<float> input(16, 1.0f);
  auto m = one_op_model<float, float>(OpKind::kConv2D, conv_params(Padding::kSame, 2), DataType::kFloat32,
                                      {1, 4, 4, 1}, {}, {1, 3, 3, 1}, std::vector<float>(9, 1.0f), {},
                                      DataType::kFloat32, kNoFloatBias, {1, 2, 2, 1}, {});
  EXPECT_EQ(run_model<float>(m, input), (std::vector<float>{9, 6, 6, 4}));
}

TEST(Conv2DKernel, FloatSamePaddingStride1PadsBothSides) {
  // 3x3 ones on 3x3 input 1..9: the corners see 4 taps, the edges 6.
  auto m = one_op_model<float, float>(OpKind::kConv2D, conv_params(Padding::kSame, 1), DataType::kFloat32,
                                      {1, 3, 3, 1}, {}, {1, 3, 3, 1}, std::vector<float>(9, 1.0f), {},
                                      DataType::kFloat32, kNoFloatBias, {1, 3, 3, 1}, {});
  EXPECT_EQ(run_model<float>(m, std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9}),
            (std::vector<float>{12, 21, 16, 27, 45, 33, 24, 39, 28}));
}

TEST(Conv2DKernel, FloatDilation) {
  // 2x2 filter dilated by 2 on a 3x3 input reads the four corners.
  auto m = one_op_model<float, float>(OpKind::kConv2D, conv_params(Padding::kValid, 1, Activation::kNone, 2),
                                      DataType::kFloat32, {1, 3, 3, 1}, {}, {1, 2, 2, 1}, {1, 10, 100, 1000}, {},
                                      DataType::kFloat32, kNoFloatBias, {1, 1, 1, 1}, {});
  EXPECT_EQ(run_model<float>(m, std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9}), (std::vector<float>{9731}));
}

TEST(Conv2DKernel, FloatMultiChannelAndActivations) {
  // 1x1 conv, 2 in channels -> 3 out channels, RELU6 clamps to [0, 6].
  auto m = one_op_model<float, float>(OpKind::kConv2D, conv_params(Padding::kValid, 1, Activation::kRelu6),
                                      DataType::kFloat32, {1, 1, 2, 2}, {}, {3, 1, 1, 2},
                                      {1, 1, -1, 0, 2, 3}, {}, DataType::kFloat32, {0.0f, 0.0f, -20.0f},
                                      {1, 1, 2, 3}, {});
  // pixel (1, 2): 3, -1, 8-20 -> 3, 0, 0; pixel (3, 1): 4, -3, 9-20 -> 4, 0, 0
  EXPECT_EQ(run_model<float>(m, std::vector<float>{1, 2, 3, 1}), (std::vector<float>{3, 0, 0, 4, 0, 0}));
  auto relu = one_op_model<float, float>(OpKind::kConv2D, conv_params(Padding::kValid, 1, Activation::kRelu),
                                         DataType::kFloat32, {1, 1, 1, 1}, {}, {2, 1, 1, 1}, {100, -1}, {},
                                         DataType::kFloat32, kNoFloatBias, {1, 1, 1, 2}, {});
  EXPECT_EQ(run_model<float>(relu, std::vector<float>{2}), (std::vector<float>{200, 0}));
  auto n1to1 = one_op_model<float, float>(OpKind::kConv2D, conv_params(Padding::kValid, 1, Activation::kReluN1To1),
                                          DataType::kFloat32, {1, 1, 1, 1}, {}, {3, 1, 1, 1}, {100, -1, 0.25f}, {},
                                          DataType::kFloat32, kNoFloatBias, {1, 1, 1, 3}, {});
  EXPECT_EQ(run_model<float>(n1to1, std::vector<float>{2}), (std::vector<float>{1, -1, 0.5f}));
}

TEST(Conv2DKernel, FloatGroupedConvolution) {
  // Input depth 4, filter depth 2: two groups of two output channels each.
  auto m = one_op_model<float, float>(OpKind::kConv2D, conv_params(Padding::kValid, 1), DataType::kFloat32,
                                      {1, 1, 1, 4}, {}, {4, 1, 1, 2}, {1, 0, 0, 1, 1, 0, 0, 1}, {},
                                      DataType::kFloat32, kNoFloatBias, {1, 1, 1, 4}, {});
  EXPECT_EQ(run_model<float>(m, std::vector<float>{1, 2, 3, 4}), (std::vector<float>{1, 2, 3, 4}));
}

TEST(Conv2DKernel, FloatBatches) {
  auto m = one_op_model<float, float>(OpKind::kConv2D, conv_params(Padding::kValid, 1), DataType::kFloat32,
                                      {2, 1, 2, 1}, {}, {1, 1, 2, 1}, {1, -1}, {}, DataType::kFloat32,
                                      kNoFloatBias, {2, 1, 1, 1}, {});
  EXPECT_EQ(run_model<float>(m, std::vector<float>{5, 2, 1, 7}), (std::vector<float>{3, -6}));
}

TEST(Conv2DKernel, FloatAccumulatesInTfliteOrder) {
  // Summed in filter order 1e8 + 1 - 1e8 + 1 is 1 in float; another order
  // would give 0 or 2.
  auto m = one_op_model<float, float>(OpKind::kConv2D, conv_params(Padding::kValid, 1), DataType::kFloat32,
                                      {1, 1, 1, 4}, {}, {1, 1, 1, 4}, {1, 1, 1, 1}, {}, DataType::kFloat32,
                                      kNoFloatBias, {1, 1, 1, 1}, {});
  EXPECT_EQ(run_model<float>(m, std::vector<float>{1e8f, 1.0f, -1e8f, 1.0f}), (std::vector<float>{1.0f}));
}

TEST(Conv2DKernel, Int8PerChannelRoundsHalfAwayFromZeroAndSaturates) {
  // input scale 0.5, filter scales 0.5 / 0.25 / 0.5, output scale 1:
  // multipliers 0.25, 0.125, 0.25. Input zero point 1 (input_offset -1).
  // Channel 0: filter 2, acc 2 * (q - 1); channel 1: filter 4; channel 2:
  // filter 127 with bias 1000, saturating.
  Quantization filter_quant{{0.5f, 0.25f, 0.5f}, {0, 0, 0}, 0};
  auto m = one_op_model<int8_t, int32_t>(OpKind::kConv2D, conv_params(Padding::kValid, 1), DataType::kInt8,
                                         {1, 1, 2, 1}, per_tensor(0.5f, 1), {3, 1, 1, 1}, {2, 4, 127},
                                         filter_quant, DataType::kInt32, {0, 0, 1000}, {1, 1, 2, 3},
                                         per_tensor(1.0f, 0));
  // q = 6: acc 10 -> 2.5 -> 3; acc 20 -> 2.5 -> 3; (635 + 1000) / 4 = 408.75 -> 127
  // q = -4: acc -10 -> -2.5 -> -3; acc -20 -> -3; (-635 + 1000) / 4 = 91.25
  // -> 92: TFLite rounds twice, 365 / 2 = 182.5 -> 183, then 183 / 2 -> 92.
  EXPECT_EQ(run_model<int8_t>(m, std::vector<int8_t>{6, -4}), (std::vector<int8_t>{3, 3, 127, -3, -3, 92}));
}

TEST(Conv2DKernel, Int8PerTensorFilterIsBroadcastAndFilterZeroPointIgnored) {
  // A per-tensor filter scale applies to every channel; int8 filters are
  // symmetric, so TFLite ignores a filter zero point. Output zero point -10,
  // RELU clamps at the quantized 0 (= -10).
  auto m = one_op_model<int8_t, int32_t>(OpKind::kConv2D, conv_params(Padding::kValid, 1, Activation::kRelu),
                                         DataType::kInt8, {1, 1, 1, 1}, per_tensor(1.0f, 0), {2, 1, 1, 1},
                                         {3, -3}, per_tensor(1.0f, 5), DataType::kInt32, {0, 0}, {1, 1, 1, 2},
                                         per_tensor(1.0f, -10));
  EXPECT_EQ(run_model<int8_t>(m, std::vector<int8_t>{7}), (std::vector<int8_t>{11, -10}));
  EXPECT_EQ(run_model<int8_t>(m, std::vector<int8_t>{-40}), (std::vector<int8_t>{-10, 110}));
  EXPECT_EQ(run_model<int8_t>(m, std::vector<int8_t>{-100}), (std::vector<int8_t>{-10, 127}));
}

TEST(Conv2DKernel, Int8WithoutBias) {
  auto m = one_op_model<int8_t, int32_t>(OpKind::kConv2D, conv_params(Padding::kValid, 1), DataType::kInt8,
                                         {1, 1, 1, 2}, per_tensor(1.0f, 0), {1, 1, 1, 2}, {-128, 127},
                                         per_tensor(0.5f, 0), DataType::kInt32, kNoIntBias, {1, 1, 1, 1},
                                         per_tensor(64.0f, 0));
  // (-128 * 127 + 127 * -128) * 0.5 / 64 = -254 -> -128
  EXPECT_EQ(run_model<int8_t>(m, std::vector<int8_t>{127, -128}), (std::vector<int8_t>{-128}));
  // (-128 * 1 + 127 * 1) / 128 = -1/128 -> 0
  EXPECT_EQ(run_model<int8_t>(m, std::vector<int8_t>{1, 1}), (std::vector<int8_t>{0}));
}

TEST(Conv2DKernel, UInt8AppliesAllThreeOffsets) {
  // zero points 128 (input), 128 (filter), 100 (output); scales 0.5 * 0.5 / 1.
  // acc = (132 - 128) * (133 - 128) + bias 4 = 24 -> 6 -> 106.
  auto m = one_op_model<uint8_t, int32_t>(OpKind::kConv2D, conv_params(Padding::kValid, 1), DataType::kUInt8,
                                          {1, 1, 1, 1}, per_tensor(0.5f, 128), {2, 1, 1, 1}, {132, 0},
                                          per_tensor(0.5f, 128), DataType::kInt32, {4, 0}, {1, 1, 1, 2},
                                          per_tensor(1.0f, 100));
  // channel 1: (0 - 128) * 5 / 4 = -160 -> clamp 0
  EXPECT_EQ(run_model<uint8_t>(m, std::vector<uint8_t>{133}), (std::vector<uint8_t>{106, 0}));
  // input 118: acc (4 * -10 + 4) = -36 -> -9 -> 91; channel 1: 1280 / 4 -> 420 -> 255
  EXPECT_EQ(run_model<uint8_t>(m, std::vector<uint8_t>{118}), (std::vector<uint8_t>{91, 255}));
}

TEST(Conv2DKernel, UInt8Relu6RangeIsTheQuantizedSix) {
  // output scale 0.1, zero point 10: RELU6 clamps to [10, 70].
  auto m = one_op_model<uint8_t, int32_t>(OpKind::kConv2D, conv_params(Padding::kValid, 1, Activation::kRelu6),
                                          DataType::kUInt8, {1, 1, 1, 1}, per_tensor(1.0f, 0), {3, 1, 1, 1},
                                          {200, 1, 0}, per_tensor(0.1f, 0), DataType::kInt32, {0, 0, -1000},
                                          {1, 1, 1, 3}, per_tensor(0.1f, 10));
  // acc 200 * 1 = 200 -> 200 + 10 -> 70; acc 1 -> 1 + 10 = 11; -1000 -> 10
  EXPECT_EQ(run_model<uint8_t>(m, std::vector<uint8_t>{1}), (std::vector<uint8_t>{70, 11, 10}));
}

// ------------------------------------------------------ DEPTHWISE_CONV_2D

TEST(DepthwiseConv2DKernel, FloatDepthMultiplierOrdersChannelsInputMajor) {
  // 2 input channels, multiplier 2: output channel = in * 2 + m.
  // Filter [1, 1, 2, 4] over a 1x2 input, VALID: one output pixel.
  auto m = one_op_model<float, float>(OpKind::kDepthwiseConv2D, depthwise_params(Padding::kValid, 1, 2),
                                      DataType::kFloat32, {1, 1, 2, 2}, {}, {1, 1, 2, 4},
                                      {1, 2, 3, 4, 10, 20, 30, 40}, {}, DataType::kFloat32, {0, 0, 0, 0.5f},
                                      {1, 1, 1, 4}, {});
  // pixels (a0, a1) = (1, 2), (b0, b1) = (3, 4):
  // oc0 = 1*1 + 3*10 = 31, oc1 = 1*2 + 3*20 = 62, oc2 = 2*3 + 4*30 = 126, oc3 = 2*4 + 4*40 + 0.5
  EXPECT_EQ(run_model<float>(m, std::vector<float>{1, 2, 3, 4}), (std::vector<float>{31, 62, 126, 168.5f}));
}

TEST(DepthwiseConv2DKernel, ZeroMultiplierIsInferredFromTheShapes) {
  auto m = one_op_model<float, float>(OpKind::kDepthwiseConv2D, depthwise_params(Padding::kValid, 1, 0),
                                      DataType::kFloat32, {1, 1, 1, 1}, {}, {1, 1, 1, 3}, {1, 2, 3}, {},
                                      DataType::kFloat32, kNoFloatBias, {1, 1, 1, 3}, {});
  EXPECT_EQ(run_model<float>(m, std::vector<float>{2}), (std::vector<float>{2, 4, 6}));
}

TEST(DepthwiseConv2DKernel, FloatSamePaddingStride2) {
  // 3x3 ones on a 4x4 single-channel input of ones, stride 2: as conv.
  auto m = one_op_model<float, float>(OpKind::kDepthwiseConv2D,
                                      depthwise_params(Padding::kSame, 2, 1, Activation::kRelu6),
                                      DataType::kFloat32, {1, 4, 4, 1}, {}, {1, 3, 3, 1},
                                      std::vector<float>(9, 1.0f), {}, DataType::kFloat32, kNoFloatBias,
                                      {1, 2, 2, 1}, {});
  EXPECT_EQ(run_model<float>(m, std::vector<float>(16, 1.0f)), (std::vector<float>{6, 6, 6, 4}));
}

TEST(DepthwiseConv2DKernel, Int8PerChannel) {
  // Two channels, filter scales 0.5 and 1, input scale 0.5 zero point -1,
  // output scale 1 zero point 0.
  Quantization filter_quant{{0.5f, 1.0f}, {0, 0}, 3};
  auto m = one_op_model<int8_t, int32_t>(OpKind::kDepthwiseConv2D, depthwise_params(Padding::kValid, 1, 1),
                                         DataType::kInt8, {1, 1, 1, 2}, per_tensor(0.5f, -1), {1, 1, 1, 2},
                                         {2, -3}, filter_quant, DataType::kInt32, {0, 1}, {1, 1, 1, 2},
                                         per_tensor(1.0f, 0));
  // ch0: 2 * (9 + 1) = 20 * 0.25 = 5; ch1: -3 * (4 + 1) + 1 = -14 * 0.5 = -7
  EXPECT_EQ(run_model<int8_t>(m, std::vector<int8_t>{9, 4}), (std::vector<int8_t>{5, -7}));
  // ch0: 2 * 4 = 8 * 0.25 = 2; ch1: -3 * -4 + 1 = 13 * 0.5 = 6.5 -> 7
  EXPECT_EQ(run_model<int8_t>(m, std::vector<int8_t>{3, -5}), (std::vector<int8_t>{2, 7}));
}

TEST(DepthwiseConv2DKernel, UInt8) {
  auto m = one_op_model<uint8_t, int32_t>(OpKind::kDepthwiseConv2D, depthwise_params(Padding::kValid, 1, 1),
                                          DataType::kUInt8, {1, 1, 2, 1}, per_tensor(1.0f, 10), {1, 1, 2, 1},
                                          {12, 8}, per_tensor(0.5f, 10), DataType::kInt32, {3}, {1, 1, 1, 1},
                                          per_tensor(1.0f, 50));
  // (12 - 10) * (20 - 10) + (8 - 10) * (14 - 10) + 3 = 15 -> 7.5 -> 8 -> 58
  EXPECT_EQ(run_model<uint8_t>(m, std::vector<uint8_t>{20, 14}), (std::vector<uint8_t>{58}));
}

// ---------------------------------------------------------- FULLY_CONNECTED

TEST(FullyConnectedKernel, FloatFlattensTheInputIntoBatches) {
  // Input [2, 1, 2]: two batches of depth 2; weights [3, 2].
  auto m = one_op_model<float, float>(OpKind::kFullyConnected, fc_params(), DataType::kFloat32, {2, 1, 2}, {},
                                      {3, 2}, {1, 0, 0, 1, 1, 1}, {}, DataType::kFloat32, {0, 0, 0.5f}, {2, 3},
                                      {});
  EXPECT_EQ(run_model<float>(m, std::vector<float>{1, 2, 3, 4}), (std::vector<float>{1, 2, 3.5f, 3, 4, 7.5f}));
}

TEST(FullyConnectedKernel, FloatWithoutBiasAndRelu) {
  auto m = one_op_model<float, float>(OpKind::kFullyConnected, fc_params(Activation::kRelu), DataType::kFloat32,
                                      {1, 2}, {}, {2, 2}, {1, 1, -1, -1}, {}, DataType::kFloat32, kNoFloatBias,
                                      {1, 2}, {});
  EXPECT_EQ(run_model<float>(m, std::vector<float>{1, 2}), (std::vector<float>{3, 0}));
}

TEST(FullyConnectedKernel, Int8PerTensorAppliesTheWeightsZeroPoint) {
  // TFLite's per-tensor int8 FullyConnected keeps (filter + filter_offset).
  // input zp 2, weights zp 1, output zp -5; scales 0.5 * 0.5 / 1 = 0.25.
  auto m = one_op_model<int8_t, int32_t>(OpKind::kFullyConnected, fc_params(), DataType::kInt8, {1, 2},
                                         per_tensor(0.5f, 2), {2, 2}, {3, 1, -1, 127}, per_tensor(0.5f, 1),
                                         DataType::kInt32, {2, 0}, {1, 2}, per_tensor(1.0f, -5));
  // unit 0: (3-1)*(6-2) + (1-1)*(0-2) + 2 = 10 -> 2.5 -> 3 -> -2
  // unit 1: (-1-1)*(6-2) + (127-1)*(0-2) = -260 -> -65 -> -70
  EXPECT_EQ(run_model<int8_t>(m, std::vector<int8_t>{6, 0}), (std::vector<int8_t>{-2, -70}));
  // unit 1 saturates: (-2)*(-128-2) + 126*(127-2) = 16010 -> 4002.5 -> 127
  EXPECT_EQ(run_model<int8_t>(m, std::vector<int8_t>{-128, 127}).at(1), 127);
}

TEST(FullyConnectedKernel, Int8PerChannelWeights) {
  Quantization weights_quant{{0.5f, 0.25f}, {0, 0}, 0};
  auto m = one_op_model<int8_t, int32_t>(OpKind::kFullyConnected, fc_params(), DataType::kInt8, {1, 1},
                                         per_tensor(0.5f, 0), {2, 1}, {2, 4}, weights_quant, DataType::kInt32,
                                         kNoIntBias, {1, 2}, per_tensor(1.0f, 0));
  // 2 * 5 * 0.25 = 2.5 -> 3; 4 * 5 * 0.125 = 2.5 -> 3; negatives away from zero
  EXPECT_EQ(run_model<int8_t>(m, std::vector<int8_t>{5}), (std::vector<int8_t>{3, 3}));
  EXPECT_EQ(run_model<int8_t>(m, std::vector<int8_t>{-5}), (std::vector<int8_t>{-3, -3}));
}

TEST(FullyConnectedKernel, UInt8) {
  auto m = one_op_model<uint8_t, int32_t>(OpKind::kFullyConnected, fc_params(Activation::kRelu), DataType::kUInt8,
                                          {2, 1}, per_tensor(1.0f, 128), {1, 1}, {130}, per_tensor(1.0f, 128),
                                          DataType::kInt32, {1}, {2, 1}, per_tensor(2.0f, 128));
  // batch 0: 2 * 3 + 1 = 7 -> 3.5 -> 4 -> 132; batch 1: 2 * -10 + 1 = -19 -> -9.5 -> -10 -> 118 -> RELU 128
  EXPECT_EQ(run_model<uint8_t>(m, std::vector<uint8_t>{131, 118}), (std::vector<uint8_t>{132, 128}));
}

TEST(FullyConnectedKernel, PerTensorMultiplierUsesTheFloatProductOfScales) {
  // Input and weights scale 0.017: TFLite multiplies them in float for a
  // per-tensor FULLY_CONNECTED (Q31 multiplier 1271035520, shift -11) but in
  // double for conv's per-channel parameters (1271035580). The accumulator
  // (here the bias alone) 164359 lands on different sides of a rounding
  // boundary: 47 versus 48.
  constexpr float kScale = 0.017f;
  auto fc = one_op_model<int8_t, int32_t>(OpKind::kFullyConnected, fc_params(), DataType::kInt8, {1, 1},
                                          per_tensor(kScale, 0), {1, 1}, {1}, per_tensor(kScale, 0),
                                          DataType::kInt32, {164359}, {1, 1}, per_tensor(1.0f, 0));
  EXPECT_EQ(run_model<int8_t>(fc, std::vector<int8_t>{0}), (std::vector<int8_t>{47}));
  auto conv = one_op_model<int8_t, int32_t>(OpKind::kConv2D, conv_params(Padding::kValid, 1), DataType::kInt8,
                                            {1, 1, 1, 1}, per_tensor(kScale, 0), {1, 1, 1, 1}, {1},
                                            per_tensor(kScale, 0), DataType::kInt32, {164359}, {1, 1, 1, 1},
                                            per_tensor(1.0f, 0));
  EXPECT_EQ(run_model<int8_t>(conv, std::vector<int8_t>{0}), (std::vector<int8_t>{48}));
}

// ----------------------------------------------------------------- errors

template <typename Fn>
std::string error_of(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

std::string run_error(const OneOpModel& m) {
  return error_of([&] {
    Interpreter interpreter(m.graph, unshared_placement(m.graph.main()));
    interpreter.run();
  });
}

TEST(ConvKernelErrors, UnsupportedInputTypeNamesOpKindAndType) {
  GraphBuilder b("errors");
  const int32_t in = b.add_tensor("in", DataType::kInt32, {1, 1, 1, 1}, per_tensor(1.0f, 0));
  const int32_t w = b.add_constant_values<int8_t>("w", DataType::kInt8, {1, 1, 1, 1}, {1}, per_tensor(1.0f, 0));
  const int32_t out = b.add_tensor("out", DataType::kInt32, {1, 1, 1, 1}, per_tensor(1.0f, 0));
  b.add_op(OpKind::kConv2D, {in, w}, {out}, conv_params(Padding::kValid, 1));
  b.set_inputs({in});
  b.set_outputs({out});
  OneOpModel m{b.finish(), in, out};
  const std::string message = run_error(m);
  EXPECT_NE(message.find("op 0 (CONV_2D)"), std::string::npos) << message;
  EXPECT_NE(message.find("INT32 is not supported; supported: FLOAT32, INT8, UINT8, INT16"), std::string::npos)
      << message;
}

TEST(ConvKernelErrors, HybridFloatInputWithInt8WeightsFails) {
  GraphBuilder b("errors");
  const int32_t in = b.add_tensor("in", DataType::kFloat32, {1, 1});
  const int32_t w = b.add_constant_values<int8_t>("w", DataType::kInt8, {1, 1}, {1}, per_tensor(1.0f, 0));
  const int32_t out = b.add_tensor("out", DataType::kFloat32, {1, 1});
  b.add_op(OpKind::kFullyConnected, {in, w}, {out}, fc_params());
  b.set_inputs({in});
  b.set_outputs({out});
  OneOpModel m{b.finish(), in, out};
  const std::string message = run_error(m);
  EXPECT_NE(message.find("op 0 (FULLY_CONNECTED)"), std::string::npos) << message;
  EXPECT_NE(message.find("filter type INT8 with FLOAT32 input is not supported"), std::string::npos) << message;
}

TEST(ConvKernelErrors, WrongBiasTypeFails) {
  auto m = one_op_model<int8_t, float>(OpKind::kConv2D, conv_params(Padding::kValid, 1), DataType::kInt8,
                                       {1, 1, 1, 1}, per_tensor(1.0f, 0), {1, 1, 1, 1}, {1}, per_tensor(1.0f, 0),
                                       DataType::kFloat32, {1.0f}, {1, 1, 1, 1}, per_tensor(1.0f, 0));
  EXPECT_NE(run_error(m).find("bias type FLOAT32"), std::string::npos) << run_error(m);
}

TEST(ConvKernelErrors, NonDefaultWeightsFormatFails) {
  FullyConnectedParams params = fc_params();
  params.weights_format = 1;
  auto m = one_op_model<float, float>(OpKind::kFullyConnected, params, DataType::kFloat32, {1, 1}, {}, {1, 1},
                                      {1}, {}, DataType::kFloat32, kNoFloatBias, {1, 1}, {});
  EXPECT_NE(run_error(m).find("weights format 1 is not supported"), std::string::npos) << run_error(m);
}

TEST(ConvKernelErrors, MissingQuantizationFails) {
  auto m = one_op_model<int8_t, int32_t>(OpKind::kDepthwiseConv2D, depthwise_params(Padding::kValid, 1, 1),
                                         DataType::kInt8, {1, 1, 1, 1}, {}, {1, 1, 1, 1}, {1}, per_tensor(1.0f, 0),
                                         DataType::kInt32, kNoIntBias, {1, 1, 1, 1}, per_tensor(1.0f, 0));
  EXPECT_NE(run_error(m).find("op 0 (DEPTHWISE_CONV_2D): quantized input has no quantization"), std::string::npos)
      << run_error(m);
}

TEST(ConvKernelErrors, OutOfRangeQuantizationFails) {
  // An int8 zero point outside [-128, 127], and scales whose ratio cannot be
  // a shift of a 32-bit accumulator.
  auto zp = one_op_model<int8_t, int32_t>(OpKind::kFullyConnected, fc_params(), DataType::kInt8, {1, 1},
                                          per_tensor(1.0f, 300), {1, 1}, {1}, per_tensor(1.0f, 0), DataType::kInt32,
                                          kNoIntBias, {1, 1}, per_tensor(1.0f, 0));
  EXPECT_NE(run_error(zp).find("zero point 300 outside the INT8 range"), std::string::npos) << run_error(zp);
  auto scale = one_op_model<int8_t, int32_t>(OpKind::kConv2D, conv_params(Padding::kValid, 1), DataType::kInt8,
                                             {1, 1, 1, 1}, per_tensor(1e30f, 0), {1, 1, 1, 1}, {1},
                                             per_tensor(1.0f, 0), DataType::kInt32, kNoIntBias, {1, 1, 1, 1},
                                             per_tensor(1e-30f, 0));
  EXPECT_NE(run_error(scale).find("is too large"), std::string::npos) << run_error(scale);
}

TEST(ConvKernelErrors, ShapeMismatchesFail) {
  // Output channels differ from the filter's.
  auto conv = one_op_model<float, float>(OpKind::kConv2D, conv_params(Padding::kValid, 1), DataType::kFloat32,
                                         {1, 1, 1, 1}, {}, {2, 1, 1, 1}, {1, 2}, {}, DataType::kFloat32,
                                         kNoFloatBias, {1, 1, 1, 3}, {});
  EXPECT_NE(run_error(conv).find("filter has 2 output channels, output has 3"), std::string::npos);
  // Depth multiplier disagrees with the channels.
  auto dw = one_op_model<float, float>(OpKind::kDepthwiseConv2D, depthwise_params(Padding::kValid, 1, 3),
                                       DataType::kFloat32, {1, 1, 1, 1}, {}, {1, 1, 1, 2}, {1, 2}, {},
                                       DataType::kFloat32, kNoFloatBias, {1, 1, 1, 2}, {});
  EXPECT_NE(run_error(dw).find("depth multiplier 3"), std::string::npos) << run_error(dw);
  // Input elements not a multiple of the weights' depth.
  auto fc = one_op_model<float, float>(OpKind::kFullyConnected, fc_params(), DataType::kFloat32, {1, 3}, {}, {1, 2},
                                       {1, 2}, {}, DataType::kFloat32, kNoFloatBias, {1, 1}, {});
  EXPECT_NE(run_error(fc).find("does not split into rows of depth 2"), std::string::npos) << run_error(fc);
  // Per-channel scales that do not match the channels.
  Quantization three_scales{{1.0f, 1.0f, 1.0f}, {0, 0, 0}, 0};
  auto q = one_op_model<int8_t, int32_t>(OpKind::kConv2D, conv_params(Padding::kValid, 1), DataType::kInt8,
                                         {1, 1, 1, 1}, per_tensor(1.0f, 0), {2, 1, 1, 1}, {1, 2}, three_scales,
                                         DataType::kInt32, kNoIntBias, {1, 1, 1, 2}, per_tensor(1.0f, 0));
  EXPECT_NE(run_error(q).find("filter has 3 scales for 2 output channels"), std::string::npos) << run_error(q);
}

// ---------------------------------------------------------- safe overlap

TEST(ConvSafeOverlap, FullyConnectedOneBatchKeepsOneOutputElement) {
  // Every unit reads the whole input again after the previous unit's write:
  // only the last output element may overlap the input's first.
  auto m = one_op_model<float, float>(OpKind::kFullyConnected, fc_params(), DataType::kFloat32, {1, 8}, {}, {5, 8},
                                      std::vector<float>(40, 1.0f), {}, DataType::kFloat32, kNoFloatBias, {1, 5},
                                      {});
  EXPECT_EQ(algorithmic_safe_overlap(m.graph, 0, m.input, m.output), 4);
}

TEST(ConvSafeOverlap, PointwiseConvOnePixelPerWrite) {
  // 1x1 conv 2 -> 2 channels on 3 pixels (float): output pixel p is written
  // after reading input pixel p; the next pixel's reads start 8 bytes on.
  // Writes of pixel p end at byte 8p + 7, later reads start at 8(p + 1):
  // delta - 1 = max(8p + 3 - 8p, 8p + 7 - 8(p + 1)) -> the first channel's
  // write before re-reading pixel p gives delta = 4 ... overlap 24 - 4 = 20.
  auto m = one_op_model<float, float>(OpKind::kConv2D, conv_params(Padding::kValid, 1), DataType::kFloat32,
                                      {1, 1, 3, 2}, {}, {2, 1, 1, 2}, {1, 1, 1, 1}, {}, DataType::kFloat32,
                                      kNoFloatBias, {1, 1, 3, 2}, {});
  EXPECT_EQ(algorithmic_safe_overlap(m.graph, 0, m.input, m.output), 20);
}

TEST(ConvSafeOverlap, DepthwiseSameShapeOneByOneIsTheWholeOutput) {
  // A 1x1 depthwise conv reads each input element exactly once, just before
  // writing the same position: the output may lie on the input entirely.
  auto m = one_op_model<float, float>(OpKind::kDepthwiseConv2D, depthwise_params(Padding::kValid, 1, 1),
                                      DataType::kFloat32, {1, 2, 2, 3}, {}, {1, 1, 1, 3}, {1, 2, 3}, {},
                                      DataType::kFloat32, kNoFloatBias, {1, 2, 2, 3}, {});
  EXPECT_EQ(algorithmic_safe_overlap(m.graph, 0, m.input, m.output), 48);
}

// Finds the op of `kind` whose first input and output have these shapes.
int32_t find_op(const Graph& graph, OpKind kind, const Shape& input, const Shape& output) {
  const Subgraph& main = graph.main();
  for (size_t i = 0; i < main.ops.size(); ++i) {
    const Op& op = main.ops[i];
    if (!op.is(kind)) continue;
    if (main.tensors[static_cast<size_t>(op.inputs[0])].shape == input &&
        main.tensors[static_cast<size_t>(op.outputs[0])].shape == output) {
      return static_cast<int32_t>(i);
    }
  }
  return -1;
}

int64_t zoo_overlap(const Graph& graph, int32_t op) {
  const Op& o = graph.main().ops.at(static_cast<size_t>(op));
  return algorithmic_safe_overlap(graph, op, o.inputs[0], o.outputs[0]);
}

TEST(ConvSafeOverlap, MobileNetV1Float) {
  const Graph graph = build_zoo_model("mobilenet_v1_1.0_224_float32");
  const int32_t conv0 = find_op(graph, OpKind::kConv2D, {1, 224, 224, 3}, {1, 112, 112, 32});
  const int32_t dw1 = find_op(graph, OpKind::kDepthwiseConv2D, {1, 112, 112, 32}, {1, 112, 112, 32});
  const int32_t pw1 = find_op(graph, OpKind::kConv2D, {1, 112, 112, 32}, {1, 112, 112, 64});
  const int32_t dw2 = find_op(graph, OpKind::kDepthwiseConv2D, {1, 112, 112, 64}, {1, 56, 56, 64});
  ASSERT_GE(conv0, 0);
  ASSERT_GE(dw1, 0);
  ASSERT_GE(pw1, 0);
  ASSERT_GE(dw2, 0);
  EXPECT_EQ(zoo_overlap(graph, conv0), 149851 * 4);
  EXPECT_EQ(zoo_overlap(graph, dw1), 397792 * 4);
  EXPECT_EQ(zoo_overlap(graph, pw1), 401377 * 4);
  EXPECT_EQ(zoo_overlap(graph, dw2), 200704 * 4);
}

TEST(ConvSafeOverlap, MobileNetV2FloatStride2Depthwise) {
  const Graph graph = build_zoo_model("mobilenet_v2_1.0_224_float32");
  const int32_t dw = find_op(graph, OpKind::kDepthwiseConv2D, {1, 112, 112, 96}, {1, 56, 56, 96});
  ASSERT_GE(dw, 0);
  EXPECT_EQ(zoo_overlap(graph, dw), 1204224);
}

// ------------------------------------------------ golden models, op by op

// The .tsv rows of a golden run by tensor index.
std::map<int32_t, test::GoldenTensor> read_recorded_tensors(const std::string& tsv_path) {
  std::map<int32_t, test::GoldenTensor> tensors;
  for (test::GoldenTensor& row : test::read_golden_tensors(tsv_path)) tensors[row.tensor] = std::move(row);
  return tensors;
}

bool is_conv_like(const Op& op) {
  return op.is(OpKind::kConv2D) || op.is(OpKind::kDepthwiseConv2D) || op.is(OpKind::kFullyConnected);
}

// Each CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED op of every golden
// model runs alone on the inputs TFLM recorded and must give TFLM's output
// bytes, whatever the state of the other ops' kernels. Without a .bin file
// (too large to keep) only the ops of a leading run of such ops are checked,
// chained from the model input.
TEST(ConvGolden, EveryConvLikeOpMatchesTflmOnItsRecordedInputs) {
  DMO_REQUIRE_SHARED(shared);
  int checked = 0;
  for (const test::GoldenCase& c : test::golden_cases()) {
    const std::string& model = c.model;
    const int seed = c.seed;
    const std::string stem = c.stem(shared);
    const Graph graph = read_tflite_file(shared + "/models/" + model + ".tflite");
    const std::map<int32_t, test::GoldenTensor> recorded = read_recorded_tensors(stem + ".tsv");
    const bool has_bin = std::ifstream(stem + ".bin").good();
    const std::vector<uint8_t> bin = has_bin ? test::read_file(stem + ".bin") : std::vector<uint8_t>{};
    Interpreter interpreter(graph, unshared_placement(graph.main()));
    interpreter.set_inputs(test::read_file(stem + ".in"));
    bool chain_intact = true;  // without a .bin: every op so far was run here
    for (int32_t op = 0; op < static_cast<int32_t>(graph.main().ops.size()); ++op) {
      if (!is_conv_like(graph.main().ops[static_cast<size_t>(op)])) {
        chain_intact = false;
        continue;
      }
      if (!has_bin && !chain_intact) break;
      const OpContext ctx = interpreter.context(op);
      if (has_bin) {
        for (const TensorRef& input : ctx.inputs) {
          if (!input.tensor || input.tensor->is_constant || !input.data) continue;
          const test::GoldenTensor& r = recorded.at(input.index);
          ASSERT_EQ(r.bytes, input.tensor->byte_size);
          std::memcpy(input.data, bin.data() + r.offset, static_cast<size_t>(r.bytes));
        }
      }
      DirectMemory memory;
      run_kernel(ctx, memory);
      for (const TensorRef& output : ctx.outputs) {
        EXPECT_EQ(test::fnv1a64_hex(interpreter.tensor_bytes(output.index)), recorded.at(output.index).fnv)
            << model << " seed " << seed << ": op " << op << " (" << graph.main().ops[static_cast<size_t>(op)].name()
            << ") output tensor " << output.index;
      }
      ++checked;
    }
  }
  // The golden models hold well over a hundred such ops per seed pair.
  RecordProperty("checked_ops", checked);
  EXPECT_GT(checked, 100);
}

}  // namespace
}  // namespace dmo

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "dmo/error.h"
#include "dmo/model/graph.h"
#include "dmo/zoo/mobilenet.h"
#include "dmo/zoo/zoo.h"

namespace dmo {
namespace {

const Tensor& tensor_at(const Graph& graph, int32_t index) {
  return graph.main().tensors.at(static_cast<size_t>(index));
}

const Tensor& input_of(const Graph& graph, const Op& op, size_t i = 0) { return tensor_at(graph, op.inputs.at(i)); }
const Tensor& output_of(const Graph& graph, const Op& op) { return tensor_at(graph, op.outputs.at(0)); }

std::vector<const Op*> ops_of_kind(const Graph& graph, OpKind kind) {
  std::vector<const Op*> ops;
  for (const Op& op : graph.main().ops) {
    if (op.is(kind)) ops.push_back(&op);
  }
  return ops;
}

bool is_conv(const Op& op) { return op.is(OpKind::kConv2D) || op.is(OpKind::kDepthwiseConv2D); }

template <typename T>
std::vector<T> values_of(const Tensor& tensor) {
  std::vector<T> values(tensor.data.size() / sizeof(T));
  std::memcpy(values.data(), tensor.data.data(), values.size() * sizeof(T));
  return values;
}

// Output channels of a conv or depthwise conv, read from its filter.
int32_t filter_channels(const Graph& graph, const Op& op) {
  const Shape& filter = input_of(graph, op, 1).shape;
  return op.is(OpKind::kConv2D) ? filter[0] : filter[3];
}

int32_t filter_fan_in(const Graph& graph, const Op& op) {
  const Shape& filter = input_of(graph, op, 1).shape;
  return op.is(OpKind::kConv2D) ? filter[1] * filter[2] * filter[3] : filter[1] * filter[2];
}

// The largest input-plus-output activation bytes of a single op: a lower
// bound on any arena for the model.
int64_t largest_op_activation_bytes(const Graph& graph) {
  int64_t largest = 0;
  for (const Op& op : graph.main().ops) {
    int64_t bytes = 0;
    for (int32_t t : op.inputs) {
      if (t != kNoTensor && !tensor_at(graph, t).is_constant) bytes += tensor_at(graph, t).byte_size;
    }
    for (int32_t t : op.outputs) bytes += tensor_at(graph, t).byte_size;
    largest = std::max(largest, bytes);
  }
  return largest;
}

MobileNetConfig config(int version, double alpha, int resolution, DataType type) {
  MobileNetConfig c;
  c.version = version;
  c.alpha = alpha;
  c.resolution = resolution;
  c.type = type;
  return c;
}

// ---- MobileNet v1 ----

TEST(MobileNetV1, FirstConvTakes224x224x3To112x112x32) {
  const Graph graph = build_zoo_model("mobilenet_v1_1.0_224_float32");
  const Op& conv0 = graph.main().ops.at(0);
  ASSERT_TRUE(conv0.is(OpKind::kConv2D));
  EXPECT_EQ(input_of(graph, conv0).shape, (Shape{1, 224, 224, 3}));
  EXPECT_EQ(input_of(graph, conv0, 1).shape, (Shape{32, 3, 3, 3}));
  EXPECT_EQ(output_of(graph, conv0).shape, (Shape{1, 112, 112, 32}));
  const auto& params = std::get<Conv2DParams>(conv0.params);
  EXPECT_EQ(params.stride_h, 2);
  EXPECT_EQ(params.stride_w, 2);
  EXPECT_EQ(params.padding, Padding::kSame);
  EXPECT_EQ(params.activation, Activation::kRelu6);
}

TEST(MobileNetV1, QuarterWidth128FirstPointwiseConvIs64x64x8To64x64x16) {
  const Graph graph = build_zoo_model("mobilenet_v1_0.25_128_int8");
  const auto& ops = graph.main().ops;
  EXPECT_EQ(output_of(graph, ops.at(0)).shape, (Shape{1, 64, 64, 8}));
  ASSERT_TRUE(ops.at(1).is(OpKind::kDepthwiseConv2D));
  EXPECT_EQ(output_of(graph, ops.at(1)).shape, (Shape{1, 64, 64, 8}));
  const Op& pointwise = ops.at(2);
  ASSERT_TRUE(pointwise.is(OpKind::kConv2D));
  EXPECT_EQ(input_of(graph, pointwise).shape, (Shape{1, 64, 64, 8}));
  EXPECT_EQ(input_of(graph, pointwise, 1).shape, (Shape{16, 1, 1, 8}));
  EXPECT_EQ(output_of(graph, pointwise).shape, (Shape{1, 64, 64, 16}));
  // The stride-2 depthwise conv of block 2 halves the map.
  EXPECT_EQ(output_of(graph, ops.at(3)).shape, (Shape{1, 32, 32, 16}));
}

TEST(MobileNetV1, QuarterWidth128PoolsA4x4x256FeatureMap) {
  const Graph graph = build_zoo_model("mobilenet_v1_0.25_128_int8");
  const auto pools = ops_of_kind(graph, OpKind::kAveragePool2D);
  ASSERT_EQ(pools.size(), 1u);
  EXPECT_EQ(input_of(graph, *pools[0]).shape, (Shape{1, 4, 4, 256}));
  EXPECT_EQ(output_of(graph, *pools[0]).shape, (Shape{1, 1, 1, 256}));
  const auto& params = std::get<Pool2DParams>(pools[0]->params);
  EXPECT_EQ(params.padding, Padding::kValid);
  EXPECT_EQ(params.filter_h, 4);
  EXPECT_EQ(params.filter_w, 4);
  // The hosted models' pool strides by 2; with a full-map filter the output is 1x1 either way.
  EXPECT_EQ(params.stride_h, 2);
  EXPECT_EQ(params.stride_w, 2);
}

TEST(MobileNetV1, OpSequenceIsConvThenThirteenSeparableBlocksThenClassifier) {
  const Graph graph = build_zoo_model("mobilenet_v1_0.5_160_float32");
  std::vector<OpKind> expected = {OpKind::kConv2D};
  for (int i = 0; i < 13; ++i) {
    expected.push_back(OpKind::kDepthwiseConv2D);
    expected.push_back(OpKind::kConv2D);
  }
  for (OpKind kind : {OpKind::kAveragePool2D, OpKind::kConv2D, OpKind::kReshape, OpKind::kSoftmax}) {
    expected.push_back(kind);
  }
  const auto& ops = graph.main().ops;
  ASSERT_EQ(ops.size(), expected.size());
  for (size_t i = 0; i < ops.size(); ++i) EXPECT_TRUE(ops[i].is(expected[i])) << "op " << i << " is " << ops[i].name();
  EXPECT_EQ(ops_of_kind(graph, OpKind::kConv2D).size(), 15u);
  EXPECT_EQ(ops_of_kind(graph, OpKind::kDepthwiseConv2D).size(), 13u);
  EXPECT_EQ(ops_of_kind(graph, OpKind::kAveragePool2D).size(), 1u);
  EXPECT_EQ(ops_of_kind(graph, OpKind::kReshape).size(), 1u);
  EXPECT_EQ(ops_of_kind(graph, OpKind::kSoftmax).size(), 1u);
}

TEST(MobileNetV1, SamePaddingRoundsSpatialSizesUp) {
  const Graph graph = build_mobilenet(config(1, 1.0, 150, DataType::kFloat32));
  const auto depthwise = ops_of_kind(graph, OpKind::kDepthwiseConv2D);
  ASSERT_EQ(depthwise.size(), 13u);
  EXPECT_EQ(input_of(graph, *depthwise[0]).shape, (Shape{1, 75, 75, 32}));
  EXPECT_EQ(output_of(graph, *depthwise[1]).shape, (Shape{1, 38, 38, 64}));
  EXPECT_EQ(output_of(graph, *depthwise[3]).shape, (Shape{1, 19, 19, 128}));
  EXPECT_EQ(output_of(graph, *depthwise[5]).shape, (Shape{1, 10, 10, 256}));
  EXPECT_EQ(output_of(graph, *depthwise[11]).shape, (Shape{1, 5, 5, 512}));
  EXPECT_EQ(input_of(graph, *ops_of_kind(graph, OpKind::kAveragePool2D).at(0)).shape, (Shape{1, 5, 5, 1024}));
}

TEST(MobileNetV1, DefaultModelsBusiestOpTouches96KiBOfActivations) {
  // Block 1's pointwise conv: 64x64x8 in + 64x64x16 out, int8.
  const Graph graph = build_zoo_model(kDefaultZooModel);
  EXPECT_EQ(largest_op_activation_bytes(graph), 32768 + 65536);
}

// ---- MobileNet v2 ----

TEST(MobileNetV2, HasTenResidualAddsAndSeventeenDepthwiseConvs) {
  const Graph graph = build_zoo_model("mobilenet_v2_1.0_224_float32");
  EXPECT_EQ(ops_of_kind(graph, OpKind::kAdd).size(), 10u);
  EXPECT_EQ(ops_of_kind(graph, OpKind::kDepthwiseConv2D).size(), 17u);
  // conv0, 16 expansions, 17 projections, the 1280 head and the logits.
  EXPECT_EQ(ops_of_kind(graph, OpKind::kConv2D).size(), 36u);
  EXPECT_EQ(ops_of_kind(graph, OpKind::kAveragePool2D).size(), 1u);
}

TEST(MobileNetV2, SecondDepthwiseConvGoes112x112x96To56x56x96) {
  const Graph graph = build_zoo_model("mobilenet_v2_1.0_224_float32");
  const Op& depthwise = *ops_of_kind(graph, OpKind::kDepthwiseConv2D).at(1);
  const Tensor& in = input_of(graph, depthwise);
  const Tensor& out = output_of(graph, depthwise);
  EXPECT_EQ(in.shape, (Shape{1, 112, 112, 96}));
  EXPECT_EQ(out.shape, (Shape{1, 56, 56, 96}));
  EXPECT_EQ(std::get<DepthwiseConv2DParams>(depthwise.params).stride_h, 2);
  EXPECT_EQ(in.byte_size, 4'816'896);
  EXPECT_EQ(out.byte_size, 1'204'224);
  EXPECT_EQ(in.byte_size + out.byte_size, 6'021'120);

  const Graph int8_graph = build_zoo_model("mobilenet_v2_1.0_224_int8");
  const Op& int8_depthwise = *ops_of_kind(int8_graph, OpKind::kDepthwiseConv2D).at(1);
  EXPECT_EQ(input_of(int8_graph, int8_depthwise).byte_size + output_of(int8_graph, int8_depthwise).byte_size,
            6'021'120 / 4);
}

TEST(MobileNetV2, ResidualAddsJoinABlockInputWithItsProjection) {
  const Graph graph = build_zoo_model("mobilenet_v2_0.75_192_int8");
  const auto& ops = graph.main().ops;
  int adds = 0;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (!ops[i].is(OpKind::kAdd)) continue;
    ++adds;
    const Op& add = ops[i];
    EXPECT_EQ(input_of(graph, add, 0).shape, output_of(graph, add).shape);
    EXPECT_EQ(input_of(graph, add, 1).shape, output_of(graph, add).shape);
    // The projection runs right before the add, the skip comes from earlier.
    ASSERT_GE(i, 3u);
    EXPECT_EQ(add.inputs[1], ops[i - 1].outputs[0]);
    EXPECT_EQ(add.inputs[0], ops[i - 3].inputs[0]);
  }
  EXPECT_EQ(adds, 10);
}

TEST(MobileNetV2, WidthMultiplierRoundsChannelsToMultiplesOfEight) {
  const Graph narrow = build_zoo_model("mobilenet_v2_0.35_96_float32");
  const auto& narrow_convs = ops_of_kind(narrow, OpKind::kConv2D);
  EXPECT_EQ(output_of(narrow, *narrow_convs.front()).shape[3], 16);  // 11.2 rounds to 8, < 90%: 16
  EXPECT_EQ(output_of(narrow, *narrow_convs[1]).shape[3], 8);        // first projection, 16 * 0.35
  EXPECT_EQ(output_of(narrow, *narrow_convs[narrow_convs.size() - 2]).shape[3], 1280);  // head stays 1280

  const Graph wide = build_zoo_model("mobilenet_v2_1.4_224_float32");
  const auto& wide_convs = ops_of_kind(wide, OpKind::kConv2D);
  EXPECT_EQ(output_of(wide, *wide_convs.front()).shape[3], 48);
  EXPECT_EQ(output_of(wide, *wide_convs[wide_convs.size() - 2]).shape[3], 1792);
}

// ---- Both versions ----

TEST(MobileNet, GraphHasOneMainSubgraphFromInputToSoftmax) {
  for (const std::string name :
       {"mobilenet_v1_0.25_128_int8", "mobilenet_v2_1.0_96_uint8", "mobilenet_v1_0.5_64_float32"}) {
    SCOPED_TRACE(name);
    const Graph graph = build_zoo_model(name);
    const DataType type = name.ends_with("uint8") ? DataType::kUInt8
                          : name.ends_with("int8") ? DataType::kInt8
                                                   : DataType::kFloat32;
    const int32_t resolution = name.find("_128_") != std::string::npos ? 128
                               : name.find("_96_") != std::string::npos ? 96
                                                                         : 64;
    EXPECT_EQ(graph.source, name);
    ASSERT_EQ(graph.subgraphs.size(), 1u);
    const Subgraph& main = graph.main();
    EXPECT_EQ(main.name, "main");
    ASSERT_EQ(main.inputs.size(), 1u);
    ASSERT_EQ(main.outputs.size(), 1u);
    EXPECT_EQ(tensor_at(graph, main.inputs[0]).shape, (Shape{1, resolution, resolution, 3}));
    EXPECT_EQ(tensor_at(graph, main.inputs[0]).type, type);
    EXPECT_EQ(main.ops.front().inputs[0], main.inputs[0]);
    ASSERT_TRUE(main.ops.back().is(OpKind::kSoftmax));
    EXPECT_EQ(main.ops.back().outputs[0], main.outputs[0]);
    EXPECT_EQ(tensor_at(graph, main.outputs[0]).shape, (Shape{1, 1001}));
    for (const Op& op : main.ops) {
      for (int32_t t : op.outputs) EXPECT_EQ(tensor_at(graph, t).type, type) << tensor_at(graph, t).name;
    }
  }
}

TEST(MobileNet, TensorNamesAreUniqueAndEveryActivationHasItsOwnTensor) {
  const Graph graph = build_zoo_model("mobilenet_v2_0.5_128_int8");
  std::set<std::string> names;
  for (const Tensor& t : graph.main().tensors) EXPECT_TRUE(names.insert(t.name).second) << t.name;
  std::set<int32_t> written;
  for (const Op& op : graph.main().ops) {
    for (int32_t t : op.outputs) EXPECT_TRUE(written.insert(t).second) << tensor_at(graph, t).name;
  }
  EXPECT_NE(names.count("block3/expand/weights"), 0u);
}

TEST(MobileNet, ClassifierReshapesLogitsTo1x1001) {
  const Graph graph = build_zoo_model("mobilenet_v1_0.25_128_int8");
  const auto reshapes = ops_of_kind(graph, OpKind::kReshape);
  ASSERT_EQ(reshapes.size(), 1u);
  const Op& reshape = *reshapes[0];
  const auto& params = std::get<ReshapeParams>(reshape.params);
  EXPECT_TRUE(params.has_new_shape);
  EXPECT_EQ(params.new_shape, (std::vector<int32_t>{1, 1001}));
  ASSERT_EQ(reshape.inputs.size(), 2u);
  const Tensor& shape = input_of(graph, reshape, 1);
  EXPECT_TRUE(shape.is_constant);
  EXPECT_EQ(shape.type, DataType::kInt32);
  EXPECT_EQ(shape.shape, (Shape{2}));
  EXPECT_EQ(values_of<int32_t>(shape), (std::vector<int32_t>{1, 1001}));
  EXPECT_EQ(input_of(graph, reshape).shape, (Shape{1, 1, 1, 1001}));
  EXPECT_EQ(output_of(graph, reshape).quantization.scale, input_of(graph, reshape).quantization.scale);
  EXPECT_EQ(output_of(graph, reshape).quantization.zero_point, input_of(graph, reshape).quantization.zero_point);
  EXPECT_FLOAT_EQ(std::get<SoftmaxParams>(graph.main().ops.back().params).beta, 1.0f);
}

TEST(MobileNet, SameNameGivesByteIdenticalConstants) {
  for (const char* name : {"mobilenet_v1_0.25_128_int8", "mobilenet_v2_0.35_96_float32", "mobilenet_v2_0.5_96_uint8"}) {
    SCOPED_TRACE(name);
    const Graph first = build_zoo_model(name);
    const Graph second = build_zoo_model(name);
    ASSERT_EQ(first.main().tensors.size(), second.main().tensors.size());
    int constants = 0;
    for (size_t i = 0; i < first.main().tensors.size(); ++i) {
      const Tensor& a = first.main().tensors[i];
      const Tensor& b = second.main().tensors[i];
      EXPECT_EQ(a.name, b.name);
      EXPECT_EQ(a.data, b.data) << a.name;
      EXPECT_EQ(a.quantization.scale, b.quantization.scale) << a.name;
      if (a.is_constant) ++constants;
    }
    EXPECT_GT(constants, 50);
  }
}

TEST(MobileNet, LayersOfTheSameShapeGetDifferentWeights) {
  const Graph graph = build_zoo_model("mobilenet_v1_0.25_128_float32");
  const Tensor* block7 = nullptr;
  const Tensor* block8 = nullptr;
  for (const Tensor& t : graph.main().tensors) {
    if (t.name == "block7/pointwise/weights") block7 = &t;
    if (t.name == "block8/pointwise/weights") block8 = &t;
  }
  ASSERT_NE(block7, nullptr);
  ASSERT_NE(block8, nullptr);
  EXPECT_EQ(block7->shape, block8->shape);
  EXPECT_NE(block7->data, block8->data);
}

TEST(MobileNet, DifferentAlphaChangesChannelCounts) {
  const Graph half = build_zoo_model("mobilenet_v1_0.5_128_float32");
  const Graph full = build_zoo_model("mobilenet_v1_1.0_128_float32");
  const auto& half_ops = half.main().ops;
  const auto& full_ops = full.main().ops;
  ASSERT_EQ(half_ops.size(), full_ops.size());
  EXPECT_EQ(output_of(half, half_ops[0]).shape[3], 16);
  EXPECT_EQ(output_of(full, full_ops[0]).shape[3], 32);
  // The last separable block ends at c(1024).
  const size_t last_pointwise = 26;
  EXPECT_EQ(output_of(half, half_ops[last_pointwise]).shape[3], 512);
  EXPECT_EQ(output_of(full, full_ops[last_pointwise]).shape[3], 1024);
  // Channel counts never drop below one.
  const Graph tiny = build_mobilenet(config(1, 0.01, 32, DataType::kFloat32));
  EXPECT_EQ(output_of(tiny, tiny.main().ops[0]).shape[3], 1);
}

TEST(MobileNet, Float32WeightsStayWithinTheirFanInLimit) {
  const Graph graph = build_zoo_model("mobilenet_v2_0.35_96_float32");
  for (const Op& op : graph.main().ops) {
    EXPECT_TRUE(input_of(graph, op).quantization.empty());
    if (!is_conv(op)) continue;
    const Tensor& weights = input_of(graph, op, 1);
    const Tensor& bias = input_of(graph, op, 2);
    ASSERT_EQ(weights.type, DataType::kFloat32);
    ASSERT_EQ(bias.type, DataType::kFloat32);
    const float limit = std::sqrt(3.0f / static_cast<float>(filter_fan_in(graph, op)));
    float largest = 0;
    for (float w : values_of<float>(weights)) largest = std::max(largest, std::abs(w));
    EXPECT_LE(largest, limit) << weights.name;
    EXPECT_GT(largest, limit / 2) << weights.name;  // not all near zero
    for (float b : values_of<float>(bias)) EXPECT_LE(std::abs(b), 0.05f) << bias.name;
  }
}

TEST(MobileNet, Int8WeightsArePerChannelSymmetricWithMatchingBiasScales) {
  const Graph graph = build_zoo_model("mobilenet_v2_0.35_96_int8");
  int convs = 0;
  for (const Op& op : graph.main().ops) {
    if (!is_conv(op)) continue;
    ++convs;
    const Tensor& input = input_of(graph, op);
    const Tensor& weights = input_of(graph, op, 1);
    const Tensor& bias = input_of(graph, op, 2);
    SCOPED_TRACE(weights.name);
    const auto channels = static_cast<size_t>(filter_channels(graph, op));
    ASSERT_EQ(weights.type, DataType::kInt8);
    ASSERT_EQ(weights.quantization.scale.size(), channels);
    EXPECT_EQ(weights.quantization.zero_point, std::vector<int64_t>(channels, 0));
    EXPECT_EQ(weights.quantization.quantized_dimension, op.is(OpKind::kConv2D) ? 0 : 3);
    const float limit = std::sqrt(3.0f / static_cast<float>(filter_fan_in(graph, op)));
    EXPECT_FLOAT_EQ(weights.quantization.scale[0], limit / 127.0f);
    for (int8_t w : values_of<int8_t>(weights)) EXPECT_NE(w, -128);

    ASSERT_EQ(bias.type, DataType::kInt32);
    ASSERT_EQ(bias.shape, (Shape{static_cast<int32_t>(channels)}));
    ASSERT_EQ(bias.quantization.scale.size(), channels);
    EXPECT_EQ(bias.quantization.zero_point, std::vector<int64_t>(channels, 0));
    for (size_t c = 0; c < channels; ++c) {
      EXPECT_EQ(bias.quantization.scale[c], input.quantization.scale[0] * weights.quantization.scale[c]);
    }
    // Real biases stay within +-0.05 (plus half a step of rounding).
    const std::vector<int32_t> values = values_of<int32_t>(bias);
    for (size_t c = 0; c < channels; ++c) {
      EXPECT_LE(std::abs(values[c] * bias.quantization.scale[c]), 0.05f + bias.quantization.scale[c]);
    }
  }
  EXPECT_EQ(convs, 17 + 36);  // depthwise plus regular convs
}

TEST(MobileNet, Int8ActivationsUseTheirLayersRanges) {
  const Graph graph = build_zoo_model("mobilenet_v2_1.0_128_int8");
  const auto quant_of = [&](int32_t t) { return tensor_at(graph, t).quantization; };
  const auto expect_quant = [&](int32_t t, float scale, int64_t zero_point) {
    const Quantization q = quant_of(t);
    ASSERT_EQ(q.scale.size(), 1u) << tensor_at(graph, t).name;
    EXPECT_FLOAT_EQ(q.scale[0], scale) << tensor_at(graph, t).name;
    EXPECT_EQ(q.zero_point, std::vector<int64_t>{zero_point}) << tensor_at(graph, t).name;
  };
  const Subgraph& main = graph.main();
  expect_quant(main.inputs[0], 1.0f / 128, 0);
  expect_quant(main.outputs[0], 1.0f / 256, -128);
  for (const Op& op : main.ops) {
    const int32_t out = op.outputs[0];
    if (op.is(OpKind::kAdd)) {
      expect_quant(out, 0.05f, 0);
    } else if (op.is(OpKind::kDepthwiseConv2D)) {
      expect_quant(out, 6.0f / 255, -128);
    } else if (op.is(OpKind::kConv2D)) {
      const Activation activation = std::get<Conv2DParams>(op.params).activation;
      if (activation == Activation::kRelu6) {
        expect_quant(out, 6.0f / 255, -128);
      } else if (output_of(graph, op).shape[3] == 1001) {
        expect_quant(out, 0.1f, 0);
      } else {
        expect_quant(out, 0.05f, 0);  // linear projection
      }
    } else if (op.is(OpKind::kAveragePool2D) || op.is(OpKind::kReshape)) {
      EXPECT_EQ(quant_of(out).scale, quant_of(op.inputs[0]).scale);
      EXPECT_EQ(quant_of(out).zero_point, quant_of(op.inputs[0]).zero_point);
    }
  }
}

TEST(MobileNet, UInt8UsesPerTensorWeightsAndShiftedZeroPoints) {
  const Graph graph = build_zoo_model("mobilenet_v1_0.25_128_uint8");
  const Subgraph& main = graph.main();
  EXPECT_EQ(tensor_at(graph, main.inputs[0]).quantization.zero_point, std::vector<int64_t>{128});
  EXPECT_EQ(tensor_at(graph, main.outputs[0]).quantization.zero_point, std::vector<int64_t>{0});
  for (const Op& op : main.ops) {
    if (!is_conv(op)) continue;
    const Tensor& input = input_of(graph, op);
    const Tensor& weights = input_of(graph, op, 1);
    const Tensor& bias = input_of(graph, op, 2);
    SCOPED_TRACE(weights.name);
    ASSERT_EQ(weights.type, DataType::kUInt8);
    ASSERT_EQ(weights.quantization.scale.size(), 1u);
    EXPECT_EQ(weights.quantization.zero_point, std::vector<int64_t>{128});
    for (uint8_t w : values_of<uint8_t>(weights)) EXPECT_GE(w, 1);
    ASSERT_EQ(bias.type, DataType::kInt32);
    ASSERT_EQ(bias.quantization.scale.size(), 1u);
    EXPECT_EQ(bias.quantization.scale[0], input.quantization.scale[0] * weights.quantization.scale[0]);
    const Quantization& out = output_of(graph, op).quantization;
    // RELU6 outputs are [0, 6] with zero point 0; v1's only linear conv is the logits.
    const bool linear = op.is(OpKind::kConv2D) && std::get<Conv2DParams>(op.params).activation == Activation::kNone;
    const int64_t expected_zero_point = linear ? 128 : 0;
    EXPECT_EQ(out.zero_point, std::vector<int64_t>{expected_zero_point});
  }
}

TEST(MobileNet, BadConfigsThrow) {
  const DataType f32 = DataType::kFloat32;
  EXPECT_THROW(build_mobilenet(config(0, 1.0, 224, f32)), Error);
  EXPECT_THROW(build_mobilenet(config(3, 1.0, 224, f32)), Error);
  EXPECT_THROW(build_mobilenet(config(1, 0.0, 224, f32)), Error);
  EXPECT_THROW(build_mobilenet(config(1, -0.5, 224, f32)), Error);
  EXPECT_THROW(build_mobilenet(config(2, 4.01, 224, f32)), Error);
  EXPECT_THROW(build_mobilenet(config(2, std::numeric_limits<double>::quiet_NaN(), 224, f32)), Error);
  EXPECT_THROW(build_mobilenet(config(1, 1.0, 31, f32)), Error);
  EXPECT_THROW(build_mobilenet(config(1, 1.0, 1025, f32)), Error);
  EXPECT_THROW(build_mobilenet(config(1, 1.0, 224, DataType::kInt16)), Error);
  EXPECT_THROW(build_mobilenet(config(1, 1.0, 224, DataType::kInt32)), Error);
  // The lower resolution edge is accepted (alpha 4 would build 67M weights).
  EXPECT_NO_THROW(build_mobilenet(config(2, 1.0, 32, DataType::kInt8)));
}

TEST(MobileNet, NameSpellsAlphaLikeTheHostedModels) {
  EXPECT_EQ(mobilenet_name(config(1, 1.0, 224, DataType::kFloat32)), "mobilenet_v1_1.0_224_float32");
  EXPECT_EQ(mobilenet_name(config(1, 0.25, 128, DataType::kInt8)), "mobilenet_v1_0.25_128_int8");
  EXPECT_EQ(mobilenet_name(config(2, 1.4, 224, DataType::kUInt8)), "mobilenet_v2_1.4_224_uint8");
  EXPECT_EQ(build_mobilenet(config(2, 0.35, 96, DataType::kInt8)).source, "mobilenet_v2_0.35_96_int8");
}

// ---- Zoo names ----

TEST(Zoo, BuildsTheSameGraphAsTheConfig) {
  const Graph by_name = build_zoo_model(kDefaultZooModel);
  const Graph by_config = build_mobilenet(config(1, 0.25, 128, DataType::kInt8));
  EXPECT_EQ(by_name.source, kDefaultZooModel);
  ASSERT_EQ(by_name.main().tensors.size(), by_config.main().tensors.size());
  for (size_t i = 0; i < by_name.main().tensors.size(); ++i) {
    EXPECT_EQ(by_name.main().tensors[i].shape, by_config.main().tensors[i].shape);
    EXPECT_EQ(by_name.main().tensors[i].data, by_config.main().tensors[i].data);
  }
}

TEST(Zoo, AcceptsAWholeAlphaWithoutDecimals) {
  const Graph graph = build_zoo_model("mobilenet_v1_1_96_float32");
  EXPECT_EQ(graph.source, "mobilenet_v1_1_96_float32");
  EXPECT_EQ(output_of(graph, graph.main().ops[0]).shape, (Shape{1, 48, 48, 32}));
}

TEST(Zoo, RejectsBadNamesWithTheAcceptedForm) {
  for (const char* name : {"", "mobilenet", "mobilenet_v1", "mobilenet_v1_0.25_128", "mobilenet_v1_0.25_128_int16",
                           "mobilenet_v1_0.25_128_int8_extra", "mobilenet_v1_abc_128_int8", "mobilenet_v1_.25_128_int8",
                           "mobilenet_v1_0._128_int8", "mobilenet_v1_0.25_12a_int8", "mobilenet_v1_0.25_-128_int8",
                           "mobilenet_vx_0.25_128_int8", "MobileNet_v1_0.25_128_int8", "resnet_v1_50_224_int8",
                           "mobilenet_v1_0.25_128_INT8", "models/mobilenet_v1_0.25_128_int8.tflite"}) {
    SCOPED_TRACE(name);
    EXPECT_FALSE(is_zoo_model_name(name));
    try {
      build_zoo_model(name);
      ADD_FAILURE() << "no error";
    } catch (const Error& error) {
      EXPECT_NE(std::string(error.what()).find(kZooNameForm), std::string::npos) << error.what();
    }
  }
}

TEST(Zoo, RecognisesOutOfRangeNamesButRefusesToBuildThem) {
  for (const char* name : {"mobilenet_v3_1.0_224_int8", "mobilenet_v1_9.0_224_int8", "mobilenet_v1_0_224_int8",
                           "mobilenet_v2_1.0_16_float32", "mobilenet_v2_1.0_99999999999999_float32"}) {
    SCOPED_TRACE(name);
    EXPECT_TRUE(is_zoo_model_name(name));
    try {
      build_zoo_model(name);
      ADD_FAILURE() << "no error";
    } catch (const Error& error) {
      // The message names the model and the rule it broke.
      EXPECT_NE(std::string(error.what()).find(name), std::string::npos) << error.what();
      EXPECT_NE(std::string(error.what()).find("must be"), std::string::npos) << error.what();
    }
  }
}

TEST(Zoo, ExampleNamesAreValidAndStartWithTheDefault) {
  const std::vector<std::string> names = zoo_example_names();
  ASSERT_GE(names.size(), 3u);
  EXPECT_EQ(names.front(), kDefaultZooModel);
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    EXPECT_TRUE(is_zoo_model_name(name));
    EXPECT_EQ(build_zoo_model(name).source, name);
  }
}

}  // namespace
}  // namespace dmo

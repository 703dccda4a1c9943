// DEPTHWISE_CONV_2D in the cmsis-nn and cmsis-nn-dsp families: which
// CMSIS-NN function and path arm_depthwise_conv_wrapper_s8 selects and the
// scratch TFLM's glue requests for it, hand-computed int8 values, the
// algorithmic safe overlap of each path (no clobber at O_s, a clobber one
// byte beyond, the reference kernel's bytes when sharing) on the shapes a
// model typically has and on a few hundred random ones, and what the
// families refuse or leave to TFLM's reference kernel.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "dmo/error.h"
#include "dmo/ops/padding.h"
#include "dmo/runtime/input_pattern.h"
#include "dmo/runtime/interpreter.h"
#include "dmo/tflite/reader.h"
#include "dmo/zoo/graph_builder.h"
#include "single_op_overlap.h"
#include "test_support.h"

namespace dmo {
namespace {

using test::addresses;
using test::clobbers_at_overlap;
using test::OneOp;
using test::per_tensor;
using test::schedule_for;

constexpr std::array<KernelFamily, 2> kCmsisFamilies = {KernelFamily::kCmsisNn, KernelFamily::kCmsisNnDsp};

struct Layer {
  int32_t batches = 1, height = 1, width = 1, channels = 1;
  int32_t filter_height = 3, filter_width = 3;
  int32_t stride = 1, dilation = 1, multiplier = 1;
  Padding padding = Padding::kSame;

  std::string describe() const {
    return fmt::format("{}x{}x{}x{} k{}x{} s{} d{} m{} {}", batches, height, width, channels, filter_height,
                       filter_width, stride, dilation, multiplier, padding == Padding::kSame ? "SAME" : "VALID");
  }
  int32_t output_height() const { return window_output_size(padding, height, filter_height, stride, dilation); }
  int32_t output_width() const { return window_output_size(padding, width, filter_width, stride, dilation); }
};

DepthwiseConv2DParams params_of(const Layer& l, Activation activation = Activation::kNone) {
  DepthwiseConv2DParams p;
  p.padding = l.padding;
  p.stride_h = p.stride_w = l.stride;
  p.dilation_h = p.dilation_w = l.dilation;
  p.depth_multiplier = l.multiplier;
  p.activation = activation;
  return p;
}

// An int8 layer with per-channel filter scales, random weights, biases and
// zero points drawn from `rng`.
OneOp int8_layer(const Layer& l, std::mt19937& rng) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const int32_t out_channels = l.channels * l.multiplier;
  GraphBuilder b("cmsis_nn_depthwise_test");
  OneOp m;
  m.input = b.add_tensor("input", DataType::kInt8, {l.batches, l.height, l.width, l.channels},
                         per_tensor(0.05f, pick(-8, 8)));
  std::vector<int8_t> weights(static_cast<size_t>(l.filter_height * l.filter_width * out_channels));
  for (int8_t& w : weights) w = static_cast<int8_t>(pick(-127, 127));
  Quantization filter_quant;
  for (int32_t c = 0; c < out_channels; ++c) {
    filter_quant.scale.push_back(0.002f * static_cast<float>(pick(1, 20)));
    filter_quant.zero_point.push_back(0);
  }
  filter_quant.quantized_dimension = 3;
  const int32_t filter = b.add_constant_values<int8_t>(
      "filter", DataType::kInt8, {1, l.filter_height, l.filter_width, out_channels}, weights, filter_quant);
  std::vector<int32_t> biases(static_cast<size_t>(out_channels));
  for (int32_t& v : biases) v = pick(-400, 400);
  const int32_t bias = b.add_constant_values<int32_t>("bias", DataType::kInt32, {out_channels}, biases);
  m.output = b.add_tensor("output", DataType::kInt8, {l.batches, l.output_height(), l.output_width(), out_channels},
                          per_tensor(0.1f, pick(-8, 8)));
  b.add_op(OpKind::kDepthwiseConv2D, {m.input, filter, bias}, {m.output}, params_of(l));
  b.set_inputs({m.input});
  b.set_outputs({m.output});
  m.graph = b.finish();
  return m;
}

std::vector<uint8_t> random_bytes(std::mt19937& rng, int64_t n) {
  std::vector<uint8_t> bytes(static_cast<size_t>(n));
  for (uint8_t& v : bytes) v = static_cast<uint8_t>(std::uniform_int_distribution<int>(0, 255)(rng));
  return bytes;
}

std::string implementation_of(const OneOp& m, KernelFamily family) {
  Interpreter interpreter(m.graph, unshared_placement(m.graph.main()), schedule_for(m, family));
  return interpreter.prepared(0).implementation;
}

std::vector<KernelScratch> scratch_of(const OneOp& m, KernelFamily family) {
  Interpreter interpreter(m.graph, unshared_placement(m.graph.main()), schedule_for(m, family));
  return interpreter.prepared(0).scratch;
}

// O_s of `family` on `m`: no clobber there, a clobber one byte (one int8
// element) beyond unless O_s already covers the whole input.
int64_t checked_safe_overlap(const OneOp& m, KernelFamily family, std::mt19937& rng, const std::string& what) {
  const int64_t os = addresses(m, family).safe_overlap();
  const std::vector<uint8_t> input = random_bytes(rng, test::bytes_of_tensor(m, m.input));
  EXPECT_FALSE(clobbers_at_overlap(m, os, input, family)) << what << " " << kernel_family_name(family) << " O_s " << os;
  if (os < std::min(test::bytes_of_tensor(m, m.input), test::bytes_of_tensor(m, m.output))) {
    EXPECT_TRUE(clobbers_at_overlap(m, os + 1, input, family))
        << what << " " << kernel_family_name(family) << " O_s " << os;
  }
  return os;
}

// ---------------------------------------------------------------- selection

struct Selection {
  Layer layer;
  const char* portable;
  const char* dsp;
};

TEST(CmsisNnDepthwise, WrapperSelectsEachPathAsCmsisNnDoes) {
  std::mt19937 rng(11);
  const std::vector<Selection> cases = {
      {{1, 16, 16, 16, 3, 3, 1, 1, 1, Padding::kSame},
       "arm_depthwise_conv_3x3_s8 (portable)",
       "arm_depthwise_conv_3x3_s8 (DSP)"},
      {{1, 16, 16, 16, 3, 3, 2, 1, 1, Padding::kSame},
       "arm_depthwise_conv_3x3_s8 (portable)",
       "arm_depthwise_conv_3x3_s8 (DSP)"},
      {{1, 9, 9, 5, 3, 3, 1, 1, 1, Padding::kValid},
       "arm_depthwise_conv_3x3_s8 (portable)",
       "arm_depthwise_conv_3x3_s8 (DSP)"},
      // 5x5 SAME pads by 2; 3x1 is not 3x3.
      {{1, 8, 8, 6, 5, 5, 1, 1, 1, Padding::kSame},
       "arm_depthwise_conv_s8_opt -> arm_depthwise_conv_s8 generic (portable)",
       "arm_depthwise_conv_s8_opt (DSP)"},
      {{1, 8, 8, 6, 3, 1, 1, 1, 1, Padding::kSame},
       "arm_depthwise_conv_s8_opt -> arm_depthwise_conv_s8 generic (portable)",
       "arm_depthwise_conv_s8_opt (DSP)"},
      // Multiplier 4 and 8: the tiled path; 2: generic.
      {{1, 8, 8, 3, 3, 3, 1, 1, 4, Padding::kSame},
       "arm_depthwise_conv_s8 multiplier-4 (portable)",
       "arm_depthwise_conv_s8 multiplier-4 (DSP)"},
      {{1, 6, 6, 2, 3, 3, 2, 1, 8, Padding::kValid},
       "arm_depthwise_conv_s8 multiplier-4 (portable)",
       "arm_depthwise_conv_s8 multiplier-4 (DSP)"},
      {{1, 8, 8, 3, 3, 3, 1, 1, 2, Padding::kSame},
       "arm_depthwise_conv_s8 generic (portable)",
       "arm_depthwise_conv_s8 generic (DSP)"},
      // Dilation or a second batch leave the multiplier-1 and -4 paths.
      {{1, 9, 9, 4, 3, 3, 1, 2, 1, Padding::kSame},
       "arm_depthwise_conv_s8 generic (portable)",
       "arm_depthwise_conv_s8 generic (DSP)"},
      {{2, 8, 8, 4, 3, 3, 1, 1, 1, Padding::kSame},
       "arm_depthwise_conv_s8 generic (portable)",
       "arm_depthwise_conv_s8 generic (DSP)"},
      {{1, 8, 8, 2, 3, 3, 1, 2, 4, Padding::kSame},
       "arm_depthwise_conv_s8 generic (portable)",
       "arm_depthwise_conv_s8 generic (DSP)"},
  };
  for (const Selection& c : cases) {
    const OneOp m = int8_layer(c.layer, rng);
    EXPECT_EQ(implementation_of(m, KernelFamily::kCmsisNn), c.portable) << c.layer.describe();
    EXPECT_EQ(implementation_of(m, KernelFamily::kCmsisNnDsp), c.dsp) << c.layer.describe();
    EXPECT_EQ(implementation_of(m, KernelFamily::kTflmReference), "") << c.layer.describe();
  }
}

TEST(CmsisNnDepthwise, ScratchIsWhatTheGlueRequests) {
  std::mt19937 rng(12);
  // arm_depthwise_conv_s8_opt with DSP: 6 channels x 5 x 5 taps x 2 bytes.
  const OneOp opt = int8_layer({1, 8, 8, 6, 5, 5, 1, 1, 1, Padding::kSame}, rng);
  const std::vector<KernelScratch> dsp = scratch_of(opt, KernelFamily::kCmsisNnDsp);
  ASSERT_EQ(dsp.size(), 1u);
  EXPECT_EQ(dsp[0].bytes, 300);
  EXPECT_FALSE(dsp[0].buffer.empty());
  // Without DSP the opt function needs no buffer, so the glue requests none.
  EXPECT_TRUE(scratch_of(opt, KernelFamily::kCmsisNn).empty());
  // The 3x3, multiplier-4 and generic paths need none in either family.
  for (const Layer& l :
       {Layer{1, 16, 16, 16, 3, 3, 1, 1, 1, Padding::kSame}, Layer{1, 8, 8, 3, 3, 3, 1, 1, 4, Padding::kSame},
        Layer{1, 8, 8, 3, 3, 3, 1, 1, 2, Padding::kSame}}) {
    const OneOp m = int8_layer(l, rng);
    for (KernelFamily family : kCmsisFamilies) {
      EXPECT_TRUE(scratch_of(m, family).empty()) << l.describe() << " " << kernel_family_name(family);
    }
  }
}

// ---------------------------------------------------------------- values

// 3x3 ones filter, SAME, on a 3x3 image whose 5 channels hold c - 2 in
// every pixel: a corner sums 4 taps, an edge 6, the centre 9. Scale 0.5
// (input 0.5 x filter 1 / output 1) is the multiplier 2^30: the doubling
// high multiply rounds a positive half up (4.5 -> 5) and a negative half
// toward zero (-4.5 -> -4), in arm_nn_requantize as in TFLM. Channel 4's
// bias 1 makes its sums odd. Channels 0-3 are one 4-channel group of
// arm_depthwise_conv_3x3_s8, channel 4 its leftover.
TEST(CmsisNnDepthwise, Int8ValuesOnThe3x3PathRoundHalvesAsTflm) {
  GraphBuilder b("cmsis_nn_depthwise_test");
  OneOp m;
  m.input = b.add_tensor("input", DataType::kInt8, {1, 3, 3, 5}, per_tensor(0.5f, 0));
  const int32_t filter = b.add_constant_values<int8_t>("filter", DataType::kInt8, {1, 3, 3, 5},
                                                       std::vector<int8_t>(45, 1), per_tensor(1.0f, 0));
  const int32_t bias = b.add_constant_values<int32_t>("bias", DataType::kInt32, {5}, {0, 0, 0, 0, 1});
  m.output = b.add_tensor("output", DataType::kInt8, {1, 3, 3, 5}, per_tensor(1.0f, 0));
  b.add_op(OpKind::kDepthwiseConv2D, {m.input, filter, bias}, {m.output},
           params_of(Layer{1, 3, 3, 5, 3, 3, 1, 1, 1, Padding::kSame}));
  b.set_inputs({m.input});
  b.set_outputs({m.output});
  m.graph = b.finish();

  std::vector<int8_t> input;
  for (int pixel = 0; pixel < 9; ++pixel) {
    for (int c = 0; c < 5; ++c) input.push_back(static_cast<int8_t>(c - 2));
  }
  // Per pixel class: sum = taps * v (+1 for channel 4), halved.
  const std::vector<int8_t> corner = {-4, -2, 0, 2, 5};   // 4v: -8 -4 0 4 9
  const std::vector<int8_t> edge = {-6, -3, 0, 3, 7};     // 6v: -12 -6 0 6 13
  const std::vector<int8_t> centre = {-9, -4, 0, 5, 10};  // 9v: -18 -9 0 9 19
  std::vector<int8_t> expected;
  for (const auto* row : {&corner, &edge, &corner, &edge, &centre, &edge, &corner, &edge, &corner}) {
    expected.insert(expected.end(), row->begin(), row->end());
  }
  for (KernelFamily family : kCmsisFamilies) {
    Interpreter interpreter(m.graph, unshared_placement(m.graph.main()), schedule_for(m, family));
    EXPECT_EQ(
        interpreter.prepared(0).implementation,
        std::string("arm_depthwise_conv_3x3_s8") + (family == KernelFamily::kCmsisNnDsp ? " (DSP)" : " (portable)"));
    interpreter.set_inputs(test::bytes_of(input));
    interpreter.run();
    EXPECT_EQ(test::values_from<int8_t>(interpreter.tensor_bytes(m.output)), expected) << kernel_family_name(family);
  }
}

// Every path computes TFLM's reference bytes, with a clamping activation
// and random data (clobbers_at_overlap compares with the reference run).
TEST(CmsisNnDepthwise, EveryPathComputesTheReferenceBytesUnshared) {
  std::mt19937 rng(13);
  for (const Layer& l :
       {Layer{1, 7, 6, 9, 3, 3, 1, 1, 1, Padding::kSame}, Layer{1, 7, 6, 9, 5, 3, 2, 1, 1, Padding::kSame},
        Layer{1, 7, 6, 3, 2, 3, 1, 1, 4, Padding::kSame}, Layer{2, 7, 6, 3, 3, 3, 2, 2, 3, Padding::kSame}}) {
    const OneOp m = int8_layer(l, rng);
    const std::vector<uint8_t> input = random_bytes(rng, test::bytes_of_tensor(m, m.input));
    for (KernelFamily family : kCmsisFamilies) {
      EXPECT_FALSE(clobbers_at_overlap(m, 0, input, family)) << l.describe();
    }
  }
}

// ---------------------------------------------------------------- safe overlap

// The shapes of a typical model, per family beside the reference kernel.
TEST(CmsisNnDepthwise, SafeOverlapOfTypicalLayers) {
  struct Typical {
    Layer layer;
    int64_t reference, portable, dsp;
  };
  const std::vector<Typical> cases = {
      // 3x3 path: the read of a 4-channel group ahead changes nothing, the
      // bound is the window's last row, read in the reference's order.
      {{1, 16, 16, 16, 3, 3, 1, 1, 1, Padding::kSame}, 3824, 3824, 3824},
      // Stride 2: the whole (smaller) output in every family.
      {{1, 16, 16, 16, 3, 3, 2, 1, 1, Padding::kSame}, 1024, 1024, 1024},
      // Multiplier 2: the generic path walks as the reference does.
      {{1, 16, 16, 16, 3, 3, 1, 1, 2, Padding::kSame}, 3824, 3824, 3824},
      // Multiplier 4: a tile reads its input once for its 4 stores, 3 bytes
      // more than the reference, which reads again for each.
      {{1, 16, 16, 16, 3, 3, 1, 1, 4, Padding::kSame}, 3824, 3827, 3827},
      // 5x5: the opt path (its im2col buffer with DSP) and generic.
      {{1, 16, 16, 16, 5, 5, 1, 1, 1, Padding::kSame}, 3552, 3552, 3552},
      {{1, 16, 16, 16, 5, 5, 2, 1, 1, Padding::kSame}, 1024, 1024, 1024},
  };
  std::mt19937 rng(14);
  for (const Typical& c : cases) {
    const OneOp m = int8_layer(c.layer, rng);
    const int64_t reference = checked_safe_overlap(m, KernelFamily::kTflmReference, rng, c.layer.describe());
    const int64_t portable = checked_safe_overlap(m, KernelFamily::kCmsisNn, rng, c.layer.describe());
    const int64_t dsp = checked_safe_overlap(m, KernelFamily::kCmsisNnDsp, rng, c.layer.describe());
    std::printf(
        "[ O_s      ] %-28s input %6lld output %6lld: reference %6lld, cmsis-nn %6lld (%s), cmsis-nn-dsp %6lld (%s)\n",
        c.layer.describe().c_str(), static_cast<long long>(test::bytes_of_tensor(m, m.input)),
        static_cast<long long>(test::bytes_of_tensor(m, m.output)), static_cast<long long>(reference),
        static_cast<long long>(portable), implementation_of(m, KernelFamily::kCmsisNn).c_str(),
        static_cast<long long>(dsp), implementation_of(m, KernelFamily::kCmsisNnDsp).c_str());
    EXPECT_EQ(reference, c.reference) << c.layer.describe();
    EXPECT_EQ(portable, c.portable) << c.layer.describe();
    EXPECT_EQ(dsp, c.dsp) << c.layer.describe();
  }
}

// A few hundred random layers, drawn so that every path is taken: O_s of
// each cmsis family holds exactly (no clobber there, one a byte beyond)
// and sharing computes the reference bytes.
TEST(CmsisNnDepthwise, SafeOverlapHoldsOnRandomLayersOfEveryPath) {
  std::mt19937 rng(20261201);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  std::map<std::string, int> paths, above_reference;
  int layers = 0;
  while (layers < 300) {
    Layer l;
    l.batches = pick(0, 7) == 0 ? 2 : 1;
    l.height = pick(1, 9);
    l.width = pick(1, 9);
    l.channels = pick(1, 9);
    // Half the layers 3x3, the rest any window up to 5x5.
    const bool three = pick(0, 1) == 0;
    l.filter_height = three ? 3 : pick(1, 5);
    l.filter_width = three ? 3 : pick(1, 5);
    l.stride = pick(1, 3);
    l.dilation = pick(0, 5) == 0 ? 2 : 1;
    const std::array<int32_t, 5> multipliers = {1, 1, 2, 4, 8};
    l.multiplier = multipliers[static_cast<size_t>(pick(0, 4))];
    l.padding = pick(0, 1) ? Padding::kSame : Padding::kValid;
    if (l.output_height() < 1 || l.output_width() < 1) continue;
    ++layers;
    const OneOp m = int8_layer(l, rng);
    const int64_t reference = addresses(m).safe_overlap();
    for (KernelFamily family : kCmsisFamilies) {
      const std::string path = implementation_of(m, family);
      ++paths[path];
      const int64_t os = checked_safe_overlap(m, family, rng, l.describe());
      // Every path stores in the reference kernel's order and reads each
      // input value no later than it does, so it never allows less.
      EXPECT_GE(os, reference) << l.describe() << " " << path;
      if (os > reference) ++above_reference[path];
    }
  }
  for (const auto& [path, count] : paths) {
    std::printf("[ paths    ] %4d %-70s O_s above the reference's in %d\n", count, path.c_str(), above_reference[path]);
  }
  EXPECT_EQ(paths.size(), 8u) << "every path of both families";
  for (const auto& [path, count] : paths) EXPECT_GE(count, 10) << path;
}

// ---------------------------------------------------------------- fallbacks and errors

TEST(CmsisNnDepthwise, FloatRunsTheReferenceKernel) {
  GraphBuilder b("cmsis_nn_depthwise_test");
  OneOp m;
  m.input = b.add_tensor("input", DataType::kFloat32, {1, 4, 4, 2});
  const int32_t filter =
      b.add_constant_values<float>("filter", DataType::kFloat32, {1, 3, 3, 2}, std::vector<float>(18, 0.5f));
  m.output = b.add_tensor("output", DataType::kFloat32, {1, 4, 4, 2});
  b.add_op(OpKind::kDepthwiseConv2D, {m.input, filter}, {m.output},
           params_of(Layer{1, 4, 4, 2, 3, 3, 1, 1, 1, Padding::kSame}));
  b.set_inputs({m.input});
  b.set_outputs({m.output});
  m.graph = b.finish();
  for (KernelFamily family : kCmsisFamilies) {
    EXPECT_EQ(implementation_of(m, family), "") << kernel_family_name(family);
    EXPECT_TRUE(scratch_of(m, family).empty());
    EXPECT_EQ(addresses(m, family).safe_overlap(), addresses(m).safe_overlap());
  }
}

std::string error_under(const Graph& graph, KernelFamily family) {
  return test::error_of([&] {
    Schedule schedule = default_schedule(graph);
    schedule.kernels = family;
    Interpreter interpreter(graph, unshared_placement(graph.main()), schedule);
    interpreter.prepared(0);
  });
}

Graph typed_layer(DataType type, DataType filter_type, DataType bias_type, const Shape& output_shape) {
  GraphBuilder b("cmsis_nn_depthwise_test");
  const int32_t input = b.add_tensor("input", type, {1, 4, 4, 2}, per_tensor(0.5f, 0));
  const int32_t filter =
      b.add_constant("filter", filter_type, {1, 3, 3, 2},
                     std::vector<uint8_t>(static_cast<size_t>(18 * *element_size(filter_type))), per_tensor(0.5f, 0));
  const int32_t bias =
      b.add_constant("bias", bias_type, {2}, std::vector<uint8_t>(static_cast<size_t>(2 * *element_size(bias_type))));
  const int32_t output = b.add_tensor("output", type, output_shape, per_tensor(0.5f, 0));
  b.add_op(OpKind::kDepthwiseConv2D, {input, filter, bias}, {output},
           params_of(Layer{1, 4, 4, 2, 3, 3, 1, 1, 1, Padding::kSame}));
  b.set_inputs({input});
  b.set_outputs({output});
  return b.finish();
}

TEST(CmsisNnDepthwise, RefusesWhatTheGlueRefuses) {
  for (KernelFamily family : kCmsisFamilies) {
    // uint8: TFLM's cmsis_nn glue has no uint8 depthwise conv.
    EXPECT_EQ(error_under(typed_layer(DataType::kUInt8, DataType::kUInt8, DataType::kInt32, {1, 4, 4, 2}), family),
              "op 0 (DEPTHWISE_CONV_2D): input type UINT8 is not supported by TFLM's CMSIS-NN depthwise conv; "
              "supported: FLOAT32, INT8, INT16");
    // The reference prepare's checks come first: types, shapes, counts.
    EXPECT_NE(error_under(typed_layer(DataType::kInt8, DataType::kInt8, DataType::kFloat32, {1, 4, 4, 2}), family)
                  .find("op 0 (DEPTHWISE_CONV_2D): bias type FLOAT32 with INT8 input is not supported"),
              std::string::npos);
    EXPECT_NE(error_under(typed_layer(DataType::kInt8, DataType::kInt8, DataType::kInt32, {1, 4, 4, 3}), family)
                  .find("op 0 (DEPTHWISE_CONV_2D): filter has 2 channels, output has 3"),
              std::string::npos);
  }
}

TEST(CmsisNnDepthwise, RefusesAnOutputThe3x3PathWouldReadPast) {
  // 4 columns, 3x3 stride 1, but 5 output columns: padding 1, and the last
  // window's middle column is column 4, past the input.
  for (KernelFamily family : kCmsisFamilies) {
    EXPECT_EQ(error_under(typed_layer(DataType::kInt8, DataType::kInt8, DataType::kInt32, {1, 4, 5, 2}), family),
              "op 0 (DEPTHWISE_CONV_2D): output width 5 needs input column 4 of 4: arm_depthwise_conv_3x3_s8 would "
              "read outside the input");
  }
}

TEST(CmsisNnDepthwise, WrongOperandCountNamesTheOp) {
  GraphBuilder b("cmsis_nn_depthwise_test");
  const int32_t input = b.add_tensor("input", DataType::kInt8, {1, 4, 4, 2}, per_tensor(0.5f, 0));
  const int32_t output = b.add_tensor("output", DataType::kInt8, {1, 4, 4, 2}, per_tensor(0.5f, 0));
  b.add_op(OpKind::kDepthwiseConv2D, {input}, {output}, params_of(Layer{}));
  b.set_inputs({input});
  b.set_outputs({output});
  const Graph graph = b.finish();
  for (KernelFamily family : kCmsisFamilies) {
    EXPECT_NE(error_under(graph, family).find("op 0 (DEPTHWISE_CONV_2D): expected 2 or 3 inputs"), std::string::npos);
  }
}

// ---------------------------------------------------------------- int16

// An int16 layer (zero points 0, int64 biases, int8 per-channel filter).
OneOp int16_layer(const Layer& l, std::mt19937& rng) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const int32_t out_channels = l.channels * l.multiplier;
  GraphBuilder b("cmsis_nn_depthwise_test");
  OneOp m;
  m.input = b.add_tensor("input", DataType::kInt16, {l.batches, l.height, l.width, l.channels}, per_tensor(0.05f, 0));
  std::vector<int8_t> weights(static_cast<size_t>(l.filter_height * l.filter_width * out_channels));
  for (int8_t& w : weights) w = static_cast<int8_t>(pick(-127, 127));
  Quantization filter_quant;
  for (int32_t c = 0; c < out_channels; ++c) {
    filter_quant.scale.push_back(0.001f * static_cast<float>(pick(1, 20)));
    filter_quant.zero_point.push_back(0);
  }
  filter_quant.quantized_dimension = 3;
  const int32_t filter = b.add_constant_values<int8_t>(
      "filter", DataType::kInt8, {1, l.filter_height, l.filter_width, out_channels}, weights, filter_quant);
  std::vector<int64_t> biases(static_cast<size_t>(out_channels));
  for (int64_t& v : biases) v = pick(-40000, 40000);
  const int32_t bias = b.add_constant_values<int64_t>("bias", DataType::kInt64, {out_channels}, biases);
  m.output = b.add_tensor("output", DataType::kInt16, {l.batches, l.output_height(), l.output_width(), out_channels},
                          per_tensor(0.1f, 0));
  b.add_op(OpKind::kDepthwiseConv2D, {m.input, filter, bias}, {m.output}, params_of(l));
  b.set_inputs({m.input});
  b.set_outputs({m.output});
  m.graph = b.finish();
  return m;
}

// clobbers_at_overlap for int16, which dmo's reference kernel does not
// run: without a clobber the overlapped run must give the family's own
// unshared bytes.
bool int16_clobbers_at_overlap(const OneOp& m, int64_t overlap, const std::vector<uint8_t>& input,
                               KernelFamily family) {
  Interpreter overlapped(m.graph, test::overlapped_placement(m, overlap), schedule_for(m, family));
  overlapped.set_inputs(input);
  const bool clobbered = overlapped.run_checked().has_value();
  if (!clobbered) {
    Interpreter unshared(m.graph, unshared_placement(m.graph.main()), schedule_for(m, family));
    unshared.set_inputs(input);
    unshared.run();
    EXPECT_EQ(overlapped.tensor_contents(m.output), unshared.tensor_contents(m.output))
        << "the overlapped run computes differently";
  }
  return clobbered;
}

// 2x3 image, 2x2 filter, VALID, two channels with filter scales 0.5 and
// 0.25 (input and output scale 1): TFLM's 64-bit requantization rounds
// 172.5 up to 173 and -750.5 up to -750.
TEST(CmsisNnDepthwise, Int16ValuesRoundAsTflm) {
  GraphBuilder b("cmsis_nn_depthwise_test");
  OneOp m;
  m.input = b.add_tensor("input", DataType::kInt16, {1, 2, 3, 2}, per_tensor(1.0f, 0));
  const Quantization filter_quant{{0.5f, 0.25f}, {0, 0}, 3};
  // (ky, kx): channel 0 [1 2; 3 -1], channel 1 [-2 1; 1 3].
  const int32_t filter =
      b.add_constant_values<int8_t>("filter", DataType::kInt8, {1, 2, 2, 2}, {1, -2, 2, 1, 3, 1, -1, 3}, filter_quant);
  const int32_t bias = b.add_constant_values<int64_t>("bias", DataType::kInt64, {2}, {2, -3});
  m.output = b.add_tensor("output", DataType::kInt16, {1, 1, 2, 2}, per_tensor(1.0f, 0));
  b.add_op(OpKind::kDepthwiseConv2D, {m.input, filter, bias}, {m.output},
           params_of(Layer{1, 2, 3, 2, 2, 2, 1, 1, 1, Padding::kValid}));
  b.set_inputs({m.input});
  b.set_outputs({m.output});
  m.graph = b.finish();
  // Channel 0: 100 200 300 / -50 7 9; channel 1: 1 2 3 / 4 5 -1001.
  const std::vector<int16_t> input = {100, 1, 200, 2, 300, 3, -50, 4, 7, 5, 9, -1001};
  // x0: (343 + 2) / 2, (19 - 3) / 4; x1: (812 + 2) / 2, (-2999 - 3) / 4.
  const std::vector<int16_t> expected = {173, 4, 407, -750};
  for (KernelFamily family : kCmsisFamilies) {
    Interpreter interpreter(m.graph, unshared_placement(m.graph.main()), schedule_for(m, family));
    EXPECT_EQ(interpreter.prepared(0).implementation,
              std::string("arm_depthwise_conv_s16") + (family == KernelFamily::kCmsisNnDsp ? " (DSP)" : " (portable)"));
    EXPECT_TRUE(interpreter.prepared(0).scratch.empty());
    interpreter.set_inputs(test::bytes_of(input));
    interpreter.run();
    EXPECT_EQ(test::values_from<int16_t>(interpreter.tensor_bytes(m.output)), expected) << kernel_family_name(family);
  }
  // dmo's reference depthwise kernel has no int16.
  EXPECT_NE(error_under(m.graph, KernelFamily::kTflmReference).find("input type INT16 is not supported"),
            std::string::npos);
}

// arm_depthwise_conv_s16 walks as the reference kernel walks int8: per
// output element, its window, then the store. O_s holds exactly on random
// layers and on the typical one.
TEST(CmsisNnDepthwise, Int16SafeOverlapHoldsOnRandomLayers) {
  std::mt19937 rng(20261202);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto check = [&](const Layer& l) {
    const OneOp m = int16_layer(l, rng);
    const std::vector<uint8_t> input = random_bytes(rng, test::bytes_of_tensor(m, m.input));
    int64_t first = -1;
    for (KernelFamily family : kCmsisFamilies) {
      const int64_t os = addresses(m, family).safe_overlap();
      if (first < 0) first = os;
      EXPECT_EQ(os, first) << l.describe() << ": one function in both families";
      EXPECT_FALSE(int16_clobbers_at_overlap(m, os, input, family)) << l.describe() << " O_s " << os;
      if (os < std::min(test::bytes_of_tensor(m, m.input), test::bytes_of_tensor(m, m.output))) {
        EXPECT_TRUE(int16_clobbers_at_overlap(m, os + 2, input, family)) << l.describe() << " O_s " << os;
      }
    }
    return first;
  };
  int layers = 0;
  while (layers < 150) {
    Layer l;
    l.batches = pick(0, 7) == 0 ? 2 : 1;
    l.height = pick(1, 8);
    l.width = pick(1, 8);
    l.channels = pick(1, 6);
    l.filter_height = pick(1, 4);
    l.filter_width = pick(1, 4);
    l.stride = pick(1, 3);
    l.dilation = pick(0, 4) == 0 ? 2 : 1;
    l.multiplier = pick(1, 4);
    l.padding = pick(0, 1) ? Padding::kSame : Padding::kValid;
    if (l.output_height() < 1 || l.output_width() < 1) continue;
    ++layers;
    check(l);
  }
  const Layer typical{1, 16, 16, 16, 3, 3, 1, 1, 1, Padding::kSame};
  const int64_t os = check(typical);
  std::printf("[ O_s      ] int16 %s: cmsis-nn and cmsis-nn-dsp %lld of %d input bytes\n", typical.describe().c_str(),
              static_cast<long long>(os), 16 * 16 * 16 * 2);
  EXPECT_EQ(os, 7648);
}

TEST(CmsisNnDepthwise, Int16RefusesWhatTheGlueRefuses) {
  for (KernelFamily family : kCmsisFamilies) {
    EXPECT_EQ(error_under(typed_layer(DataType::kInt16, DataType::kInt8, DataType::kInt32, {1, 4, 4, 2}), family),
              "op 0 (DEPTHWISE_CONV_2D): bias type INT32 with INT16 input is not supported; the bias must be INT64");
    EXPECT_EQ(error_under(typed_layer(DataType::kInt16, DataType::kInt16, DataType::kInt64, {1, 4, 4, 2}), family),
              "op 0 (DEPTHWISE_CONV_2D): filter type INT16 with INT16 input is not supported; the filter must be INT8");
    EXPECT_EQ(error_under(typed_layer(DataType::kInt16, DataType::kInt8, DataType::kInt64, {1, 4, 4, 3}), family),
              "op 0 (DEPTHWISE_CONV_2D): filter has 2 channels, output has 3");
    GraphBuilder b("cmsis_nn_depthwise_test");
    const int32_t input = b.add_tensor("input", DataType::kInt16, {1, 4, 4, 2}, per_tensor(0.5f, 3));
    const int32_t filter =
        b.add_constant("filter", DataType::kInt8, {1, 3, 3, 2}, std::vector<uint8_t>(18), per_tensor(0.5f, 0));
    const int32_t output = b.add_tensor("output", DataType::kInt16, {1, 4, 4, 2}, per_tensor(0.5f, 0));
    b.add_op(OpKind::kDepthwiseConv2D, {input, filter}, {output},
             params_of(Layer{1, 4, 4, 2, 3, 3, 1, 1, 1, Padding::kSame}));
    b.set_inputs({input});
    b.set_outputs({output});
    EXPECT_EQ(error_under(b.finish(), family),
              "op 0 (DEPTHWISE_CONV_2D): int16 input and output must have zero point 0");
  }
}

// ---------------------------------------------------------------- shared models

// Every shared model with int8 depthwise convs: each such op's O_s per
// family beside the reference kernel's (never below it), and the whole
// model run with each family's kernels gives the reference run's outputs.
TEST(CmsisNnDepthwise, SharedModelsRunBitExactAndNeverLoseOverlap) {
  DMO_REQUIRE_SHARED(shared);
  int ops = 0;
  for (const std::string& file : test::tflite_files_in(shared + "/models")) {
    Graph graph;
    try {
      graph = read_tflite_file(file);
      require_kernels(graph);
    } catch (const Error&) {
      continue;  // shared_models_test covers the models dmo cannot read or run
    }
    const Subgraph& main = graph.main();
    std::vector<int32_t> depthwise;
    for (size_t i = 0; i < main.ops.size(); ++i) {
      const Op& op = main.ops[i];
      if (op.is(OpKind::kDepthwiseConv2D) && main.tensors[static_cast<size_t>(op.inputs[0])].type == DataType::kInt8) {
        depthwise.push_back(static_cast<int32_t>(i));
      }
    }
    if (depthwise.empty()) continue;
    const std::vector<uint8_t> input = pattern_input(main, 1);
    Interpreter reference(graph, unshared_placement(main));
    reference.set_inputs(input);
    reference.run();
    for (KernelFamily family : kCmsisFamilies) {
      Schedule schedule = default_schedule(graph);
      schedule.kernels = family;
      Interpreter interpreter(graph, unshared_placement(main), schedule);
      interpreter.set_inputs(input);
      interpreter.run();
      for (int32_t output : main.outputs) {
        EXPECT_EQ(interpreter.tensor_contents(output), reference.tensor_contents(output))
            << test::file_stem(file) << " " << kernel_family_name(family);
      }
    }
    for (int32_t op : depthwise) {
      const Op& o = main.ops[static_cast<size_t>(op)];
      const int64_t os_reference = algorithmic_safe_overlap(graph, op, o.inputs[0], o.outputs[0]);
      std::string line =
          fmt::format("{} op {} {}: reference {}", test::file_stem(file), op,
                      shape_to_string(main.tensors[static_cast<size_t>(o.inputs[0])].shape), os_reference);
      for (KernelFamily family : kCmsisFamilies) {
        Schedule schedule = default_schedule(graph);
        schedule.kernels = family;
        const Interpreter interpreter(graph, unshared_placement(main), schedule);
        const int64_t os = algorithmic_safe_overlap(interpreter, op, o.inputs[0], o.outputs[0]);
        EXPECT_GE(os, os_reference) << line;
        line += fmt::format(", {} {} ({})", kernel_family_name(family), os, interpreter.prepared(op).implementation);
      }
      std::printf("[ model    ] %s\n", line.c_str());
      ++ops;
    }
  }
  std::printf("[ model    ] %d int8 depthwise ops\n", ops);
  // The 63 of the shared models dmo runs today, or more as kernels arrive.
  EXPECT_GE(ops, 63);
}

}  // namespace
}  // namespace dmo

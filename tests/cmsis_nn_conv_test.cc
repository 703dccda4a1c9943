// CONV_2D in the cmsis-nn and cmsis-nn-dsp families: which CMSIS-NN
// function arm_convolve_wrapper_s8 runs for a shape and the scratch TFLM's
// glue requests for it, the reference fallback for other types, the safe
// overlap each path's access order gives (no clobber at O_s, outputs equal
// to TFLM's reference kernel; a clobber one byte beyond) on typical shapes
// and on a few hundred random ones, and the reference prepare's errors.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
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

using test::OneOp;
using test::per_tensor;

constexpr std::array<KernelFamily, 2> kCmsisFamilies = {KernelFamily::kCmsisNn, KernelFamily::kCmsisNnDsp};

struct ConvCase {
  int32_t batches = 1;
  int32_t height = 8, width = 8, depth = 4;
  int32_t filter_height = 3, filter_width = 3, filter_depth = 0;  // 0: the input depth
  int32_t output_depth = 4;
  int32_t stride_h = 1, stride_w = 1;
  int32_t dilation_h = 1, dilation_w = 1;
  Padding padding = Padding::kSame;
  bool bias = true;
  DataType type = DataType::kInt8;
};

// A one-op CONV_2D graph with random constant weights: int8 per-channel
// (zero points chosen to exercise the offsets), uint8 per tensor, or float.
OneOp conv_model(const ConvCase& c, uint32_t seed = 1) {
  std::mt19937 rng(seed);
  const int32_t filter_depth = c.filter_depth > 0 ? c.filter_depth : c.depth;
  const int32_t out_h = window_output_size(c.padding, c.height, c.filter_height, c.stride_h, c.dilation_h);
  const int32_t out_w = window_output_size(c.padding, c.width, c.filter_width, c.stride_w, c.dilation_w);
  const int64_t filter_count = int64_t{c.output_depth} * c.filter_height * c.filter_width * filter_depth;
  GraphBuilder b("cmsis_nn_conv_test");
  OneOp m;
  const Conv2DParams params{c.padding, c.stride_w, c.stride_h, c.dilation_w, c.dilation_h, Activation::kNone};
  const Shape input_shape{c.batches, c.height, c.width, c.depth};
  const Shape filter_shape{c.output_depth, c.filter_height, c.filter_width, filter_depth};
  const Shape output_shape{c.batches, out_h, out_w, c.output_depth};
  int32_t filter = -1, bias = kNoTensor;
  if (c.type == DataType::kFloat32) {
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    std::vector<float> weights(static_cast<size_t>(filter_count)), biases(static_cast<size_t>(c.output_depth));
    for (float& w : weights) w = value(rng);
    for (float& v : biases) v = value(rng);
    m.input = b.add_tensor("input", c.type, input_shape);
    filter = b.add_constant_values<float>("filter", c.type, filter_shape, weights);
    if (c.bias) bias = b.add_constant_values<float>("bias", c.type, {c.output_depth}, biases);
    m.output = b.add_tensor("output", c.type, output_shape);
  } else {
    const bool int8 = c.type == DataType::kInt8;
    std::uniform_int_distribution<int> weight(int8 ? -127 : 0, int8 ? 127 : 255);
    std::uniform_int_distribution<int> bias_value(-2000, 2000);
    std::vector<int32_t> biases(static_cast<size_t>(c.output_depth));
    for (int32_t& v : biases) v = bias_value(rng);
    const float input_scale = 0.05f, filter_scale = 0.01f;
    const float taps = static_cast<float>(c.filter_height * c.filter_width * filter_depth);
    const float output_scale = input_scale * filter_scale * 40.0f * std::sqrt(taps);
    Quantization filter_quant;
    if (int8) {
      for (int32_t o = 0; o < c.output_depth; ++o) {
        filter_quant.scale.push_back(filter_scale * (1.0f + 0.1f * static_cast<float>(o % 3)));
        filter_quant.zero_point.push_back(0);
      }
    } else {
      filter_quant = per_tensor(filter_scale, 128);
    }
    m.input = b.add_tensor("input", c.type, input_shape, per_tensor(input_scale, int8 ? -3 : 125));
    if (int8) {
      std::vector<int8_t> weights(static_cast<size_t>(filter_count));
      for (int8_t& w : weights) w = static_cast<int8_t>(weight(rng));
      filter = b.add_constant_values<int8_t>("filter", c.type, filter_shape, weights, filter_quant);
    } else {
      std::vector<uint8_t> weights(static_cast<size_t>(filter_count));
      for (uint8_t& w : weights) w = static_cast<uint8_t>(weight(rng));
      filter = b.add_constant_values<uint8_t>("filter", c.type, filter_shape, weights, filter_quant);
    }
    if (c.bias) bias = b.add_constant_values<int32_t>("bias", DataType::kInt32, {c.output_depth}, biases);
    m.output = b.add_tensor("output", c.type, output_shape, per_tensor(output_scale, int8 ? 5 : 130));
  }
  std::vector<int32_t> inputs = {m.input, filter};
  if (bias != kNoTensor) inputs.push_back(bias);
  b.add_op(OpKind::kConv2D, inputs, {m.output}, params);
  b.set_inputs({m.input});
  b.set_outputs({m.output});
  m.graph = b.finish();
  return m;
}

std::vector<uint8_t> random_input(const OneOp& m, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> bytes(static_cast<size_t>(test::bytes_of_tensor(m, m.input)));
  for (uint8_t& byte : bytes) byte = static_cast<uint8_t>(rng());
  return bytes;
}

const PreparedKernel& prepared_for(const Interpreter& interpreter) { return interpreter.prepared(0); }

std::string implementation_of(const OneOp& m, KernelFamily family) {
  const Interpreter interpreter(m.graph, unshared_placement(m.graph.main()), test::schedule_for(m, family));
  return prepared_for(interpreter).implementation;
}

std::vector<KernelScratch> scratch_of(const OneOp& m, KernelFamily family) {
  const Interpreter interpreter(m.graph, unshared_placement(m.graph.main()), test::schedule_for(m, family));
  return prepared_for(interpreter).scratch;
}

std::string suffix(KernelFamily family) { return family == KernelFamily::kCmsisNnDsp ? " (DSP)" : " (portable)"; }

// The safe-overlap facts of `family`'s kernel on `m`: no clobber at its O_s
// (outputs equal to the reference kernel's, checked inside), a clobber one
// byte beyond where the input and output extend that far. Returns O_s.
int64_t check_overlap_facts(const OneOp& m, KernelFamily family, uint32_t seed, const std::string& where) {
  const std::vector<uint8_t> input = random_input(m, seed);
  const int64_t os = test::addresses(m, family).safe_overlap();
  EXPECT_FALSE(test::clobbers_at_overlap(m, os, input, family)) << where << " O_s " << os;
  const int64_t limit = std::min(test::bytes_of_tensor(m, m.input), test::bytes_of_tensor(m, m.output));
  if (os < limit) {
    EXPECT_TRUE(test::clobbers_at_overlap(m, os + 1, input, family)) << where << " O_s " << os;
  }
  return os;
}

ConvCase same_3x3_8_to_8_on_16x16() {
  ConvCase c;
  c.height = c.width = 16;
  c.depth = c.output_depth = 8;
  return c;
}

ConvCase pointwise_16_to_8_on_8x8() {
  ConvCase c;
  c.depth = 16;
  c.output_depth = 8;
  c.filter_height = c.filter_width = 1;
  c.padding = Padding::kValid;
  return c;
}

ConvCase strided_3x3_on_16x16() {
  ConvCase c = same_3x3_8_to_8_on_16x16();
  c.stride_h = c.stride_w = 2;
  return c;
}

// One int8 CONV_2D run under `family`: input zero point -1 (offset +1),
// filter scale 1, output scale 2 (multiplier exactly 0.5; every sum below is
// even, so no rounding tie), output zero point 3.
std::vector<int8_t> run_small_int8_conv(KernelFamily family, const Shape& input_shape, const std::vector<int8_t>& input,
                                        const Shape& filter_shape, const std::vector<int8_t>& filter,
                                        const std::vector<int32_t>& bias, const Shape& output_shape, Padding padding) {
  GraphBuilder b("cmsis_nn_conv_test");
  const int32_t in = b.add_tensor("input", DataType::kInt8, input_shape, per_tensor(1.0f, -1));
  const int32_t weights = b.add_constant_values<int8_t>("filter", DataType::kInt8, filter_shape, filter,
                                                        per_tensor(1.0f, 0));
  const int32_t biases =
      b.add_constant_values<int32_t>("bias", DataType::kInt32, {static_cast<int32_t>(bias.size())}, bias);
  const int32_t out = b.add_tensor("output", DataType::kInt8, output_shape, per_tensor(2.0f, 3));
  b.add_op(OpKind::kConv2D, {in, weights, biases}, {out}, Conv2DParams{padding, 1, 1, 1, 1, Activation::kNone});
  b.set_inputs({in});
  b.set_outputs({out});
  const Graph graph = b.finish();
  Schedule schedule = default_schedule(graph);
  schedule.kernels = family;
  Interpreter interpreter(graph, unshared_placement(graph.main()), schedule);
  interpreter.set_inputs(test::bytes_of(input));
  EXPECT_FALSE(interpreter.run_checked().has_value());
  return test::values_from<int8_t>(interpreter.tensor_contents(out));
}

TEST(CmsisNnConv, ComputesHandComputedInt8Values) {
  for (KernelFamily family : kCmsisFamilies) {
    SCOPED_TRACE(std::string(kernel_family_name(family)));
    // arm_convolve_1x1_s8_fast: pixels [1, 2] and [-1, 3] (+1: [2, 3], [0, 4]);
    // channel 0 [1, 2] bias 0: 8, 8; channel 1 [-1, 2] bias 4: 8, 12;
    // channel 2 [2, -2] bias -2: -4, -10; halved, plus 3.
    EXPECT_EQ(run_small_int8_conv(family, {1, 1, 2, 2}, {1, 2, -1, 3}, {3, 1, 1, 2}, {1, 2, -1, 2, 2, -2}, {0, 4, -2},
                                  {1, 1, 2, 3}, Padding::kValid),
              (std::vector<int8_t>{7, 7, 1, 7, 9, -2}));
    // arm_convolve_s8, 3x3 SAME on 2x2: every window holds all four pixels
    // (+1: 2 + 3 + 4 + 5 = 14) and padding taps, which hold the zero point
    // and add nothing: 14 / 2 + 3.
    EXPECT_EQ(run_small_int8_conv(family, {1, 2, 2, 1}, {1, 2, 3, 4}, {1, 3, 3, 1}, std::vector<int8_t>(9, 1), {0},
                                  {1, 2, 2, 1}, Padding::kSame),
              (std::vector<int8_t>{10, 10, 10, 10}));
  }
}

TEST(CmsisNnConv, SelectsTheFunctionOfArmConvolveWrapperS8) {
  ConvCase strided_1x1 = pointwise_16_to_8_on_8x8();
  strided_1x1.stride_h = strided_1x1.stride_w = 2;
  ConvCase one_by_n;  // input height 1, filter height 1, stride_w * depth = 4
  one_by_n.height = 1;
  one_by_n.width = 16;
  one_by_n.filter_height = 1;
  one_by_n.filter_width = 3;
  ConvCase odd_depth_row = one_by_n;  // stride_w * depth = 3: the generic kernel
  odd_depth_row.depth = 3;
  ConvCase grouped_1x1 = pointwise_16_to_8_on_8x8();  // the 1x1 kernels have no groups
  grouped_1x1.filter_depth = 8;
  for (KernelFamily family : kCmsisFamilies) {
    SCOPED_TRACE(std::string(kernel_family_name(family)));
    EXPECT_EQ(implementation_of(conv_model(pointwise_16_to_8_on_8x8()), family),
              "arm_convolve_1x1_s8_fast" + suffix(family));
    EXPECT_EQ(implementation_of(conv_model(strided_1x1), family), "arm_convolve_1x1_s8" + suffix(family));
    EXPECT_EQ(implementation_of(conv_model(one_by_n), family),
              "arm_convolve_1_x_n_s8 -> arm_convolve_s8" + suffix(family));
    EXPECT_EQ(implementation_of(conv_model(odd_depth_row), family), "arm_convolve_s8" + suffix(family));
    EXPECT_EQ(implementation_of(conv_model(same_3x3_8_to_8_on_16x16()), family), "arm_convolve_s8" + suffix(family));
    EXPECT_EQ(implementation_of(conv_model(strided_3x3_on_16x16()), family), "arm_convolve_s8" + suffix(family));
    EXPECT_EQ(implementation_of(conv_model(grouped_1x1), family), "arm_convolve_s8" + suffix(family));
  }
}

TEST(CmsisNnConv, ScratchIsWhatTheGlueRequests) {
  // arm_convolve_s8: two int16 columns of kernel_h * kernel_w * input depth
  // rounded up to a multiple of 4: 3 * 3 * 3 = 27 -> 28, 2 * 28 * 2 bytes.
  ConvCase rgb = same_3x3_8_to_8_on_16x16();
  rgb.depth = 3;
  ConvCase one_by_n;
  one_by_n.height = 1;
  one_by_n.width = 16;
  one_by_n.filter_height = 1;
  one_by_n.filter_width = 3;  // 1 * 3 * 4 = 12 -> 2 * 12 * 2 bytes
  for (KernelFamily family : kCmsisFamilies) {
    SCOPED_TRACE(std::string(kernel_family_name(family)));
    const std::vector<KernelScratch> generic = scratch_of(conv_model(rgb), family);
    ASSERT_EQ(generic.size(), 1u);
    EXPECT_EQ(generic[0].bytes, 112);
    const std::vector<KernelScratch> row = scratch_of(conv_model(one_by_n), family);
    ASSERT_EQ(row.size(), 1u);
    EXPECT_EQ(row[0].bytes, 48);
    // The 1x1 kernels need none, so the glue requests none.
    EXPECT_TRUE(scratch_of(conv_model(pointwise_16_to_8_on_8x8()), family).empty());
    ConvCase strided_1x1 = pointwise_16_to_8_on_8x8();
    strided_1x1.stride_h = 2;
    EXPECT_TRUE(scratch_of(conv_model(strided_1x1), family).empty());
    // arm_nn_is_convolve_1x1 asks for equal input and filter depths: a
    // grouped unpadded 1x1 layer gets arm_convolve_s8's two int16 columns
    // of the input depth (16), 2 * 16 * 2 bytes.
    ConvCase grouped_1x1 = pointwise_16_to_8_on_8x8();
    grouped_1x1.filter_depth = 8;
    const std::vector<KernelScratch> grouped = scratch_of(conv_model(grouped_1x1), family);
    ASSERT_EQ(grouped.size(), 1u);
    EXPECT_EQ(grouped[0].bytes, 64);
  }
}

TEST(CmsisNnConv, OtherTypesRunTheReferenceKernel) {
  ConvCase float_conv = same_3x3_8_to_8_on_16x16();
  float_conv.type = DataType::kFloat32;
  ConvCase uint8_conv = same_3x3_8_to_8_on_16x16();
  uint8_conv.type = DataType::kUInt8;
  for (const ConvCase& c : {float_conv, uint8_conv}) {
    const OneOp m = conv_model(c);
    const int64_t reference_os = test::addresses(m).safe_overlap();
    for (KernelFamily family : kCmsisFamilies) {
      EXPECT_EQ(implementation_of(m, family), "");
      EXPECT_TRUE(scratch_of(m, family).empty());
      EXPECT_EQ(test::addresses(m, family).safe_overlap(), reference_os);
    }
  }
}

// Per path and family: no clobber at O_s (the same outputs as TFLM's
// reference kernel), a clobber one byte beyond.
TEST(CmsisNnConv, SafeOverlapHoldsExactlyOnEveryPath) {
  ConvCase strided_1x1 = pointwise_16_to_8_on_8x8();
  strided_1x1.stride_h = strided_1x1.stride_w = 2;
  ConvCase odd_channels_1x1 = pointwise_16_to_8_on_8x8();
  odd_channels_1x1.output_depth = 5;
  odd_channels_1x1.width = 7;
  odd_channels_1x1.depth = 6;
  ConvCase one_by_n;
  one_by_n.height = 1;
  one_by_n.width = 16;
  one_by_n.filter_height = 1;
  one_by_n.filter_width = 3;
  ConvCase grouped = same_3x3_8_to_8_on_16x16();
  grouped.height = grouped.width = 7;
  grouped.filter_depth = 4;
  grouped.output_depth = 6;
  ConvCase padded_batches = strided_3x3_on_16x16();
  padded_batches.batches = 2;
  padded_batches.height = padded_batches.width = 9;
  padded_batches.output_depth = 3;
  padded_batches.bias = false;
  const std::vector<ConvCase> cases = {pointwise_16_to_8_on_8x8(), strided_1x1, odd_channels_1x1, one_by_n,
                                       same_3x3_8_to_8_on_16x16(), strided_3x3_on_16x16(), grouped, padded_batches};
  for (size_t i = 0; i < cases.size(); ++i) {
    const OneOp m = conv_model(cases[i], static_cast<uint32_t>(i) + 7);
    for (KernelFamily family : kCmsisFamilies) {
      check_overlap_facts(m, family, static_cast<uint32_t>(i), fmt::format("case {} {}", i, kernel_family_name(family)));
    }
  }
}

// The O_s each family's kernel reaches on typical layers, beside TFLM's
// reference kernel's (as measured by the address-only policy).
TEST(CmsisNnConv, SafeOverlapOfTypicalLayersPerFamily) {
  struct Expected {
    ConvCase layer;
    int64_t reference, cmsis_nn, cmsis_nn_dsp;
  };
  const std::vector<Expected> expected = {
      // arm_convolve_s8 reads each window once and stores a pixel only after
      // the next pixel's window is read; the reference rereads the window for
      // every output channel.
      {same_3x3_8_to_8_on_16x16(), 1905, 1912, 1912},
      // Each channel pair rereads the whole input after the previous pairs
      // stored into every pixel: only the last pixel's last pair is stored
      // after the input's final read.
      {pointwise_16_to_8_on_8x8(), 505, 2, 2},
      // The output (512 bytes) fits wholly inside the input.
      {strided_3x3_on_16x16(), 505, 512, 512},
  };
  for (const Expected& e : expected) {
    const OneOp m = conv_model(e.layer);
    const int64_t reference = test::addresses(m).safe_overlap();
    const int64_t portable = check_overlap_facts(m, KernelFamily::kCmsisNn, 3, "portable");
    const int64_t dsp = check_overlap_facts(m, KernelFamily::kCmsisNnDsp, 3, "dsp");
    EXPECT_EQ(reference, e.reference);
    EXPECT_EQ(portable, e.cmsis_nn);
    EXPECT_EQ(dsp, e.cmsis_nn_dsp);
  }
}

// A random layer that selects `path` (0: 1x1 fast, 1: 1x1 strided, 2: 1xN,
// 3: anything else the generic kernel takes, grouped or dilated included).
ConvCase random_case(std::mt19937& rng, int path) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  ConvCase c;
  c.batches = pick(1, 2);
  c.height = pick(1, 7);
  c.width = pick(1, 9);
  c.depth = pick(1, 9);
  c.output_depth = pick(1, 7);
  c.bias = pick(0, 3) != 0;
  switch (path) {
    case 0:
    case 1:
      c.filter_height = c.filter_width = 1;
      c.padding = pick(0, 1) ? Padding::kSame : Padding::kValid;
      if (path == 1) {
        c.stride_h = pick(1, 3);
        c.stride_w = c.stride_h == 1 ? pick(2, 3) : pick(1, 3);
      }
      break;
    case 2:
      c.height = 1;
      c.filter_height = 1;
      c.filter_width = pick(2, 4);
      c.stride_w = pick(1, 2);
      c.depth = pick(1, 3) * (c.stride_w == 2 ? 2 : 4);
      c.width = pick(c.filter_width, 12);
      c.padding = pick(0, 1) ? Padding::kSame : Padding::kValid;
      break;
    default:
      c.filter_height = pick(1, 4);
      c.filter_width = pick(2, 4);
      c.stride_h = pick(1, 3);
      c.stride_w = pick(1, 3);
      c.dilation_h = pick(1, 2);
      c.dilation_w = pick(1, 2);
      c.padding = pick(0, 1) ? Padding::kSame : Padding::kValid;
      if (c.height == 1 && c.filter_height == 1) c.height = 2;  // not a 1xN layer
      if (pick(0, 3) == 0) {  // grouped: filter depth divides the input depth
        const int groups = pick(2, 3);
        c.filter_depth = pick(1, 3);
        c.depth = groups * c.filter_depth;
        c.output_depth = groups * pick(1, 3);
      }
      break;
  }
  return c;
}

bool fits(const ConvCase& c) {
  return window_output_size(c.padding, c.height, c.filter_height, c.stride_h, c.dilation_h) > 0 &&
         window_output_size(c.padding, c.width, c.filter_width, c.stride_w, c.dilation_w) > 0;
}

TEST(CmsisNnConv, SafeOverlapHoldsOnRandomLayersOfEveryPath) {
  std::mt19937 rng(20261201);
  const std::array<std::string, 4> functions = {"arm_convolve_1x1_s8_fast", "arm_convolve_1x1_s8 ",
                                                "arm_convolve_1_x_n_s8", "arm_convolve_s8 "};
  std::array<int, 4> checked{};
  int beyond = 0;
  for (int trial = 0; trial < 320; ++trial) {
    const int path = trial % 4;
    ConvCase c = random_case(rng, path);
    if (!fits(c)) continue;
    const OneOp m = conv_model(c, static_cast<uint32_t>(trial));
    for (KernelFamily family : kCmsisFamilies) {
      const std::string where = fmt::format("trial {} {}", trial, kernel_family_name(family));
      const std::string implementation = implementation_of(m, family) + " ";
      // A 1x1 SAME layer has no padding; the 1xN shapes select 1xN.
      ASSERT_EQ(implementation.rfind(functions[static_cast<size_t>(path)], 0), 0u) << where << ": " << implementation;
      const int64_t os = check_overlap_facts(m, family, static_cast<uint32_t>(trial) * 2 + 1, where);
      if (os < std::min(test::bytes_of_tensor(m, m.input), test::bytes_of_tensor(m, m.output))) ++beyond;
    }
    ++checked[static_cast<size_t>(path)];
  }
  for (int count : checked) EXPECT_GE(count, 50);
  EXPECT_GE(beyond, 200);
}

// Whole shared models whose every op has a kernel: under each cmsis family
// (CMSIS-NN's CONV_2D, reference kernels elsewhere) every tensor holds the
// reference run's bytes, unshared and with no clobber.
TEST(CmsisNnConv, SharedModelsComputeTheReferenceValues) {
  DMO_REQUIRE_SHARED(shared);
  for (const char* name : {"tflm_person_detect_int8", "tiny_vww_96_int8", "tiny_kws_ref_model_int8"}) {
    SCOPED_TRACE(name);
    const Graph graph = read_tflite_file(shared + "/models/" + name + ".tflite");
    const std::vector<uint8_t> input = pattern_input(graph.main(), 1);
    Interpreter reference(graph, unshared_placement(graph.main()));
    reference.set_inputs(input);
    reference.run();
    for (KernelFamily family : kCmsisFamilies) {
      Schedule schedule = default_schedule(graph);
      schedule.kernels = family;
      Interpreter cmsis(graph, unshared_placement(graph.main()), schedule);
      int cmsis_convs = 0;
      for (size_t op = 0; op < graph.main().ops.size(); ++op) {
        if (!cmsis.prepared(static_cast<int32_t>(op)).implementation.empty()) ++cmsis_convs;
      }
      EXPECT_GT(cmsis_convs, 0);
      cmsis.set_inputs(input);
      EXPECT_FALSE(cmsis.run_checked().has_value());
      for (size_t t = 0; t < graph.main().tensors.size(); ++t) {
        if (graph.main().tensors[t].is_constant) continue;
        EXPECT_EQ(cmsis.tensor_contents(static_cast<int32_t>(t)), reference.tensor_contents(static_cast<int32_t>(t)))
            << kernel_family_name(family) << " tensor " << graph.main().tensors[t].name;
      }
    }
  }
}

std::string error_running(const Graph& graph, KernelFamily family) {
  return test::error_of([&] {
    Schedule schedule = default_schedule(graph);
    schedule.kernels = family;
    Interpreter interpreter(graph, unshared_placement(graph.main()), schedule);
    interpreter.set_inputs(std::vector<uint8_t>(static_cast<size_t>(graph.main().tensors[0].byte_size)));
    interpreter.run();
  });
}

TEST(CmsisNnConv, BadOperandsGiveTheReferenceErrors) {
  for (KernelFamily family : kCmsisFamilies) {
    SCOPED_TRACE(std::string(kernel_family_name(family)));
    {  // one input only
      GraphBuilder b("cmsis_nn_conv_test");
      const int32_t input = b.add_tensor("input", DataType::kInt8, {1, 4, 4, 4}, per_tensor(0.5f, 0));
      const int32_t output = b.add_tensor("output", DataType::kInt8, {1, 4, 4, 4}, per_tensor(0.5f, 0));
      b.add_op(OpKind::kConv2D, {input}, {output}, Conv2DParams{});
      b.set_inputs({input});
      b.set_outputs({output});
      EXPECT_EQ(error_running(b.finish(), family),
                "op 0 (CONV_2D): expected 2 or 3 inputs (input, filter, bias), got 1");
    }
    {  // int8 bias
      GraphBuilder b("cmsis_nn_conv_test");
      const int32_t input = b.add_tensor("input", DataType::kInt8, {1, 4, 4, 4}, per_tensor(0.5f, 0));
      const int32_t filter = b.add_constant_values<int8_t>("filter", DataType::kInt8, {4, 1, 1, 4},
                                                           std::vector<int8_t>(16, 1), per_tensor(0.5f, 0));
      const int32_t bias =
          b.add_constant_values<int8_t>("bias", DataType::kInt8, {4}, std::vector<int8_t>(4, 1), per_tensor(0.5f, 0));
      const int32_t output = b.add_tensor("output", DataType::kInt8, {1, 4, 4, 4}, per_tensor(0.5f, 0));
      b.add_op(OpKind::kConv2D, {input, filter, bias}, {output}, Conv2DParams{});
      b.set_inputs({input});
      b.set_outputs({output});
      EXPECT_EQ(error_running(b.finish(), family),
                "op 0 (CONV_2D): bias type INT8 with INT8 input is not supported; the bias must be INT32");
    }
    {  // filter channels differ from the output's
      GraphBuilder b("cmsis_nn_conv_test");
      const int32_t input = b.add_tensor("input", DataType::kInt8, {1, 4, 4, 4}, per_tensor(0.5f, 0));
      const int32_t filter = b.add_constant_values<int8_t>("filter", DataType::kInt8, {3, 1, 1, 4},
                                                           std::vector<int8_t>(12, 1), per_tensor(0.5f, 0));
      const int32_t output = b.add_tensor("output", DataType::kInt8, {1, 4, 4, 4}, per_tensor(0.5f, 0));
      b.add_op(OpKind::kConv2D, {input, filter}, {output}, Conv2DParams{});
      b.set_inputs({input});
      b.set_outputs({output});
      EXPECT_EQ(error_running(b.finish(), family), "op 0 (CONV_2D): filter has 3 output channels, output has 4");
    }
    {  // int32 activations: neither dmo's reference kernel nor this one runs them
      GraphBuilder b("cmsis_nn_conv_test");
      const int32_t input = b.add_tensor("input", DataType::kInt32, {1, 4, 4, 4}, per_tensor(0.5f, 0));
      const int32_t filter = b.add_constant_values<int8_t>("filter", DataType::kInt8, {4, 1, 1, 4},
                                                           std::vector<int8_t>(16, 1), per_tensor(0.5f, 0));
      const int32_t output = b.add_tensor("output", DataType::kInt32, {1, 4, 4, 4}, per_tensor(0.5f, 0));
      b.add_op(OpKind::kConv2D, {input, filter}, {output}, Conv2DParams{});
      b.set_inputs({input});
      b.set_outputs({output});
      EXPECT_EQ(error_running(b.finish(), family),
                "op 0 (CONV_2D): input type INT32 is not supported; supported: FLOAT32, INT8, UINT8, INT16");
    }
  }
}

}  // namespace
}  // namespace dmo

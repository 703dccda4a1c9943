// FULLY_CONNECTED, AVERAGE_POOL_2D, MAX_POOL_2D, ADD, MUL and SOFTMAX in the
// cmsis-nn and cmsis-nn-dsp kernel families: which CMSIS-NN function and
// path each op selects (and the scratch its glue requests), where the glue
// falls back to TFLM's reference kernels, values against hand-computed
// TFLite results, and the safe overlap each family's access order gives:
// no clobber at O_s, a clobber one element beyond, outputs equal to the
// reference kernel's, on chosen shapes and a few hundred random ones.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "dmo/error.h"
#include "dmo/ops/padding.h"
#include "dmo/runtime/interpreter.h"
#include "dmo/tflite/reader.h"
#include "dmo/zoo/graph_builder.h"
#include "single_op_overlap.h"
#include "test_support.h"

namespace dmo {
namespace {

using test::addresses;
using test::bytes_of;
using test::clobbers_at_overlap;
using test::OneOp;
using test::per_tensor;
using test::values_from;

constexpr KernelFamily kPortable = KernelFamily::kCmsisNn;
constexpr KernelFamily kDsp = KernelFamily::kCmsisNnDsp;
constexpr std::array<KernelFamily, 2> kCmsisFamilies = {kPortable, kDsp};

std::vector<uint8_t> random_bytes(std::mt19937& rng, int64_t n) {
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<uint8_t> v(static_cast<size_t>(n));
  for (uint8_t& b : v) b = static_cast<uint8_t>(byte(rng));
  return v;
}

using test::random_values;

Graph finish_one_op(GraphBuilder& b, OpKind kind, std::vector<int32_t> inputs, std::vector<int32_t> graph_inputs,
                    int32_t output, OpParams params) {
  b.add_op(kind, std::move(inputs), {output}, std::move(params));
  b.set_inputs(std::move(graph_inputs));
  b.set_outputs({output});
  return b.finish();
}

// ------------------------------------------------------------- builders

// FULLY_CONNECTED int8: input [batches, depth], weights [units, depth]
// (per-channel scales when `per_channel`), bias, output [batches, units];
// `keep_num_dims` gives input [1, batches, depth] and output [1, batches, units].
OneOp fully_connected(int32_t batches, int32_t depth, int32_t units, bool per_channel, std::mt19937& rng,
                      Activation activation = Activation::kNone, bool keep_num_dims = false) {
  GraphBuilder b("cmsis fully connected");
  OneOp m;
  const Shape input_shape = keep_num_dims ? Shape{1, batches, depth} : Shape{batches, depth};
  const Shape output_shape = keep_num_dims ? Shape{1, batches, units} : Shape{batches, units};
  m.input = b.add_tensor("input", DataType::kInt8, input_shape, per_tensor(0.05f, 3));
  Quantization wq = per_tensor(0.02f, 0);
  if (per_channel) {
    wq.scale.clear();
    wq.zero_point.clear();
    for (int32_t u = 0; u < units; ++u) {
      wq.scale.push_back(0.01f + 0.003f * static_cast<float>(u % 7));
      wq.zero_point.push_back(0);
    }
  }
  const int32_t weights = b.add_constant_values<int8_t>("weights", DataType::kInt8, {units, depth},
                                                        random_values<int8_t>(rng, int64_t{units} * depth, -127, 127), wq);
  const int32_t bias = b.add_constant_values<int32_t>("bias", DataType::kInt32, {units},
                                                      random_values<int32_t>(rng, units, -500, 500));
  m.output = b.add_tensor("output", DataType::kInt8, output_shape, per_tensor(0.1f, -5));
  FullyConnectedParams p;
  p.activation = activation;
  p.keep_num_dims = keep_num_dims;
  m.graph = finish_one_op(b, OpKind::kFullyConnected, {m.input, weights, bias}, {m.input}, m.output, p);
  return m;
}

// A pool over NHWC `type` (INT8 or INT16, or FLOAT32/UINT8 for fallbacks).
OneOp pool(OpKind kind, DataType type, int32_t batches, int32_t h, int32_t w, int32_t c, int32_t kh, int32_t kw,
           int32_t sh, int32_t sw, Padding padding, Activation activation = Activation::kNone) {
  GraphBuilder b("cmsis pool");
  OneOp m;
  const bool is16 = type == DataType::kInt16;
  const Quantization q = type == DataType::kFloat32 ? Quantization{} : per_tensor(is16 ? 0.001f : 0.05f, is16 ? 0 : -2);
  m.input = b.add_tensor("input", type, {batches, h, w, c}, q);
  const int32_t oh = window_output_size(padding, h, kh, sh, 1), ow = window_output_size(padding, w, kw, sw, 1);
  m.output = b.add_tensor("output", type, {batches, oh, ow, c}, q);
  m.graph = finish_one_op(b, kind, {m.input}, {m.input}, m.output, Pool2DParams{padding, sw, sh, kw, kh, activation});
  return m;
}

// ADD or MUL of two `type` tensors of shapes a and b; O_s against input `which`.
OneOp binary(OpKind kind, DataType type, const Shape& a, const Shape& b_shape, const Shape& out, int which,
             Activation activation = Activation::kNone) {
  GraphBuilder b("cmsis binary");
  const bool is16 = type == DataType::kInt16;
  const Quantization q1 = type == DataType::kFloat32 ? Quantization{} : per_tensor(is16 ? 0.0005f : 0.04f, is16 ? 0 : 5);
  const Quantization q2 = type == DataType::kFloat32 ? Quantization{} : per_tensor(is16 ? 0.0003f : 0.03f, is16 ? 0 : -7);
  const Quantization qo = type == DataType::kFloat32 ? Quantization{} : per_tensor(is16 ? 0.001f : 0.06f, is16 ? 0 : 2);
  const int32_t x = b.add_tensor("a", type, a, q1);
  const int32_t y = b.add_tensor("b", type, b_shape, q2);
  OneOp m;
  m.output = b.add_tensor("output", type, out, qo);
  m.input = which == 0 ? x : y;
  m.graph = finish_one_op(b, kind, {x, y}, {x, y}, m.output, ElementwiseParams{activation});
  return m;
}

// SOFTMAX of INT8 rows to INT8 or INT16 (or other types for fallbacks).
OneOp softmax(DataType in_type, DataType out_type, int32_t rows, int32_t depth, float input_scale = 0.1f) {
  GraphBuilder b("cmsis softmax");
  OneOp m;
  const Quantization qin = in_type == DataType::kFloat32 ? Quantization{} : per_tensor(input_scale, in_type == DataType::kInt16 ? 0 : 4);
  Quantization qout;
  if (out_type == DataType::kInt8) qout = per_tensor(1.0f / 256, -128);
  if (out_type == DataType::kInt16) qout = per_tensor(1.0f / 65536, -32768);
  m.input = b.add_tensor("input", in_type, {rows, depth}, qin);
  m.output = b.add_tensor("output", out_type, {rows, depth}, qout);
  m.graph = finish_one_op(b, OpKind::kSoftmax, {m.input}, {m.input}, m.output, SoftmaxParams{1.0f});
  return m;
}

// ------------------------------------------------------------- helpers

const PreparedKernel& prepared_in(const Interpreter& interpreter) { return interpreter.prepared(0); }

// The implementation and scratch the op prepares with under `family`.
struct Selection {
  std::string implementation;
  std::vector<KernelScratch> scratch;
};
Selection selection(const OneOp& m, KernelFamily family) {
  const Interpreter interpreter(m.graph, unshared_placement(m.graph.main()), test::schedule_for(m, family));
  const PreparedKernel& k = prepared_in(interpreter);
  return Selection{k.implementation, k.scratch};
}

// Output bytes of the op run unshared under `family` on `input` (all graph inputs).
std::vector<uint8_t> run_family(const OneOp& m, KernelFamily family, const std::vector<uint8_t>& input) {
  Interpreter interpreter(m.graph, unshared_placement(m.graph.main()), test::schedule_for(m, family));
  interpreter.set_inputs(input);
  interpreter.run();
  return interpreter.tensor_contents(m.output);
}

std::string run_error(const OneOp& m, KernelFamily family) {
  return test::error_of([&] {
    Interpreter interpreter(m.graph, unshared_placement(m.graph.main()), test::schedule_for(m, family));
    interpreter.set_inputs(std::vector<uint8_t>(static_cast<size_t>(interpreter.input_bytes())));
    interpreter.run();
  });
}

int64_t element_bytes(const OneOp& m) {
  return element_size(m.graph.main().tensors[static_cast<size_t>(m.input)].type).value_or(1);
}

// The two facts of an algorithmic O_s for `family`: no clobber (and the
// reference's output) at O_s; a clobber `step` bytes beyond (one input
// element unless given), when that still fits in both tensors. Returns O_s.
int64_t expect_tight_overlap(const OneOp& m, KernelFamily family, const std::vector<uint8_t>& input,
                             const std::string& what, int64_t step = 0) {
  const int64_t os = addresses(m, family).safe_overlap();
  EXPECT_FALSE(clobbers_at_overlap(m, os, input, family)) << what << " at O_s " << os;
  const int64_t beyond = os + (step > 0 ? step : element_bytes(m));
  if (beyond <= std::min(test::bytes_of_tensor(m, m.input), test::bytes_of_tensor(m, m.output))) {
    EXPECT_TRUE(clobbers_at_overlap(m, beyond, input, family)) << what << " at " << beyond << " (O_s " << os << ")";
  }
  return os;
}

// A path that memcpy's from the input to the output (MAX_POOL_2D's first
// tap): O_s takes each copy in its worst order, and one byte beyond it a
// copy's destination partly overlaps its source, a clobber even where a
// whole element further would land exactly on it (a safe copy). Returns O_s.
int64_t expect_tight_copy_overlap(const OneOp& m, KernelFamily family, const std::vector<uint8_t>& input,
                                  const std::string& what) {
  EXPECT_TRUE(addresses(m, family).copied_input_to_output()) << what;
  return expect_tight_overlap(m, family, input, what, 1);
}

std::vector<uint8_t> graph_input_bytes(const OneOp& m, std::mt19937& rng) {
  const Interpreter interpreter(m.graph, unshared_placement(m.graph.main()));
  return random_bytes(rng, interpreter.input_bytes());
}

// ------------------------------------------------------------- FULLY_CONNECTED

TEST(CmsisNnFullyConnected, SelectsTheS8FunctionPerQuantizationAndItsScratch) {
  std::mt19937 rng(1);
  const OneOp per_tensor_fc = fully_connected(2, 10, 7, false, rng);
  const OneOp per_channel_fc = fully_connected(2, 10, 7, true, rng);
  EXPECT_EQ(selection(per_tensor_fc, kPortable).implementation, "arm_fully_connected_s8 (portable C)");
  EXPECT_EQ(selection(per_tensor_fc, kDsp).implementation, "arm_fully_connected_s8 (DSP)");
  EXPECT_EQ(selection(per_channel_fc, kPortable).implementation, "arm_fully_connected_per_channel_s8 (portable C)");
  EXPECT_EQ(selection(per_channel_fc, kDsp).implementation, "arm_fully_connected_per_channel_s8 (DSP)");
  // arm_fully_connected_s8_get_buffer_size is 0 without MVE: no request.
  EXPECT_TRUE(selection(per_tensor_fc, kPortable).scratch.empty());
  EXPECT_TRUE(selection(per_channel_fc, kDsp).scratch.empty());
  EXPECT_TRUE(selection(per_tensor_fc, KernelFamily::kTflmReference).implementation.empty());
  // An output of more than 2 dimensions with a depth a multiple of 4 runs as a 1x1 convolution.
  const OneOp as_conv = fully_connected(3, 12, 5, false, rng, Activation::kNone, /*keep_num_dims=*/true);
  const OneOp odd_depth = fully_connected(3, 10, 5, false, rng, Activation::kNone, /*keep_num_dims=*/true);
  EXPECT_EQ(selection(as_conv, kPortable).implementation, "arm_convolve_1x1_s8_fast (portable C)");
  EXPECT_EQ(selection(as_conv, kDsp).implementation, "arm_convolve_1x1_s8_fast (DSP)");
  // With per-tensor weights Prepare asks for an int32 multiplier and shift
  // per unit to fake per-channel quantization; per-channel weights have them.
  for (KernelFamily family : {kPortable, kDsp}) {
    const std::vector<KernelScratch> scratch = selection(as_conv, family).scratch;
    ASSERT_EQ(scratch.size(), 1u);
    EXPECT_EQ(scratch[0].bytes, 5 * 8);
  }
  const OneOp as_conv_per_channel = fully_connected(3, 12, 5, true, rng, Activation::kNone, /*keep_num_dims=*/true);
  EXPECT_TRUE(selection(as_conv_per_channel, kDsp).scratch.empty());
  EXPECT_EQ(selection(odd_depth, kDsp).implementation, "arm_fully_connected_s8 (DSP)");
}

TEST(CmsisNnFullyConnected, FloatRunsTheReferenceKernel) {
  GraphBuilder b("float fc");
  OneOp m;
  m.input = b.add_tensor("input", DataType::kFloat32, {1, 4});
  const int32_t w = b.add_constant_values<float>("w", DataType::kFloat32, {2, 4}, {1, 2, 3, 4, -1, -2, -3, -4});
  m.output = b.add_tensor("output", DataType::kFloat32, {1, 2});
  m.graph = finish_one_op(b, OpKind::kFullyConnected, {m.input, w}, {m.input}, m.output, FullyConnectedParams{});
  for (KernelFamily family : kCmsisFamilies) {
    EXPECT_EQ(selection(m, family).implementation, "");
    EXPECT_EQ(values_from<float>(run_family(m, family, bytes_of<float>({1, 1, 1, 1}))), (std::vector<float>{10, -10}));
  }
}

TEST(CmsisNnFullyConnected, ComputesTfliteValues) {
  // input zero point 3, weights scale 0.02, output scale 0.1 zero point -5:
  // multiplier 0.05 * 0.02 / 0.1 = 0.01.
  GraphBuilder b("fc values");
  OneOp m;
  m.input = b.add_tensor("input", DataType::kInt8, {1, 5}, per_tensor(0.05f, 3));
  const int32_t w = b.add_constant_values<int8_t>("w", DataType::kInt8, {4, 5},
                                                  {100, 100, 100, 100, 100, -100, -100, -100, -100, -100,
                                                   127, 0, 0, 0, 0, 1, 2, 3, 4, 5},
                                                  per_tensor(0.02f, 0));
  const int32_t bias = b.add_constant_values<int32_t>("bias", DataType::kInt32, {4}, {50, 0, -149, 0});
  m.output = b.add_tensor("output", DataType::kInt8, {1, 4}, per_tensor(0.1f, -5));
  m.graph = finish_one_op(b, OpKind::kFullyConnected, {m.input, w, bias}, {m.input}, m.output, FullyConnectedParams{});
  // (input - 3) = {10, 20, 30, 40, 50}: sums 15000+50, -15000, 1270-149, 550;
  // * 0.01, rounded: 150.5 -> 151 (saturates to 127 after -5 is added: 146 -> 127),
  // -150 -5 -> -128 (clamped), 11.21 -> 11 - 5 = 6, 5.5 -> 6 - 5 = 1.
  const std::vector<int8_t> expected = {127, -128, 6, 1};
  for (KernelFamily family : kCmsisFamilies) {
    EXPECT_EQ(values_from<int8_t>(run_family(m, family, bytes_of<int8_t>({13, 23, 33, 43, 53}))), expected)
        << kernel_family_name(family);
  }
}

TEST(CmsisNnFullyConnected, SafeOverlapOfTypicalShapes) {
  std::mt19937 rng(2);
  // One batch of 64 -> 10 (a classifier head), and 4 batches of 16 -> 8.
  // Every unit re-reads its batch's input row, so an output byte may only
  // cover input bytes no later unit reads: the units stored before the
  // last re-read decide. The reference stores one unit per row pass, the
  // portable path three (then the leftovers one by one), the DSP path two:
  // its last pass stores two units, so one more output byte may overlap.
  const OneOp head = fully_connected(1, 64, 10, false, rng);
  const OneOp batched = fully_connected(4, 16, 8, true, rng);
  EXPECT_EQ(addresses(head, KernelFamily::kTflmReference).safe_overlap(), 1);
  EXPECT_EQ(expect_tight_overlap(head, kPortable, graph_input_bytes(head, rng), "fc head"), 1);
  EXPECT_EQ(expect_tight_overlap(head, kDsp, graph_input_bytes(head, rng), "fc head dsp"), 2);
  EXPECT_EQ(addresses(batched, KernelFamily::kTflmReference).safe_overlap(), 25);
  EXPECT_EQ(expect_tight_overlap(batched, kPortable, graph_input_bytes(batched, rng), "fc batched"), 25);
  EXPECT_EQ(expect_tight_overlap(batched, kDsp, graph_input_bytes(batched, rng), "fc batched dsp"), 26);
  // As a 1x1 convolution the whole input is read again for every pair of
  // units, after the first pair's outputs of every batch are stored.
  const OneOp as_conv = fully_connected(4, 16, 8, false, rng, Activation::kNone, /*keep_num_dims=*/true);
  EXPECT_EQ(addresses(as_conv, KernelFamily::kTflmReference).safe_overlap(), 25);
  // Output byte 29 (batch 3, unit 5) is stored before the last pair's pass
  // reads the input from its first byte: O_s 2, against 25 for the
  // reference order.
  EXPECT_EQ(expect_tight_overlap(as_conv, kPortable, graph_input_bytes(as_conv, rng), "fc as conv"), 2);
  EXPECT_EQ(expect_tight_overlap(as_conv, kDsp, graph_input_bytes(as_conv, rng), "fc as conv dsp"), 2);
}

TEST(CmsisNnFullyConnected, RejectsBadOperandsAsTheReferenceDoes) {
  GraphBuilder b("bad fc");
  OneOp m;
  m.input = b.add_tensor("input", DataType::kInt8, {1, 6}, per_tensor(0.1f, 0));
  const int32_t w = b.add_constant_values<int8_t>("w", DataType::kInt8, {2, 4}, std::vector<int8_t>(8, 1),
                                                  per_tensor(0.1f, 0));
  m.output = b.add_tensor("output", DataType::kInt8, {1, 2}, per_tensor(0.1f, 0));
  m.graph = finish_one_op(b, OpKind::kFullyConnected, {m.input, w}, {m.input}, m.output, FullyConnectedParams{});
  for (KernelFamily family : kCmsisFamilies) {
    const std::string message = run_error(m, family);
    EXPECT_NE(message.find("op 0 (FULLY_CONNECTED): input 1x6 does not split into rows of depth 4"), std::string::npos)
        << message;
  }
}

// ------------------------------------------------------------- pools

TEST(CmsisNnPool, SelectsTheFunctionsAndTheDspAverageScratch) {
  const OneOp avg8 = pool(OpKind::kAveragePool2D, DataType::kInt8, 1, 6, 6, 5, 2, 2, 2, 2, Padding::kValid);
  const OneOp avg16 = pool(OpKind::kAveragePool2D, DataType::kInt16, 1, 6, 6, 3, 3, 3, 1, 1, Padding::kSame);
  const OneOp max8 = pool(OpKind::kMaxPool2D, DataType::kInt8, 1, 6, 6, 5, 2, 2, 2, 2, Padding::kValid);
  const OneOp max16 = pool(OpKind::kMaxPool2D, DataType::kInt16, 1, 6, 6, 5, 2, 2, 2, 2, Padding::kValid);
  EXPECT_EQ(selection(avg8, kPortable).implementation, "arm_avgpool_s8 (portable C)");
  EXPECT_EQ(selection(avg8, kDsp).implementation, "arm_avgpool_s8 (DSP)");
  EXPECT_EQ(selection(avg16, kDsp).implementation, "arm_avgpool_s16 (DSP)");
  EXPECT_EQ(selection(max8, kPortable).implementation, "arm_max_pool_s8 (portable C)");
  EXPECT_EQ(selection(max16, kDsp).implementation, "arm_max_pool_s16 (DSP)");
  // arm_avgpool_s8/_s16_get_buffer_size: one int32 per channel with DSP, else 0.
  EXPECT_TRUE(selection(avg8, kPortable).scratch.empty());
  ASSERT_EQ(selection(avg8, kDsp).scratch.size(), 1u);
  EXPECT_EQ(selection(avg8, kDsp).scratch[0].bytes, 20);
  ASSERT_EQ(selection(avg16, kDsp).scratch.size(), 1u);
  EXPECT_EQ(selection(avg16, kDsp).scratch[0].bytes, 12);
  EXPECT_TRUE(selection(max8, kDsp).scratch.empty());
}

TEST(CmsisNnPool, RefusesMoreThanTheOneBatchTheGluePasses) {
  const OneOp two_batches = pool(OpKind::kAveragePool2D, DataType::kInt8, 2, 4, 4, 3, 2, 2, 2, 2, Padding::kValid);
  const OneOp max16 = pool(OpKind::kMaxPool2D, DataType::kInt16, 3, 4, 4, 3, 2, 2, 2, 2, Padding::kValid);
  for (KernelFamily family : kCmsisFamilies) {
    std::string message = run_error(two_batches, family);
    EXPECT_NE(message.find("op 0 (AVERAGE_POOL_2D): TFLM's cmsis_nn glue runs arm_avgpool_s8 on the first of the "
                           "input's 2 batches only; one batch is supported"),
              std::string::npos)
        << message;
    message = run_error(max16, family);
    EXPECT_NE(message.find("op 0 (MAX_POOL_2D): TFLM's cmsis_nn glue runs arm_max_pool_s16 on the first of the "
                           "input's 3 batches only"),
              std::string::npos)
        << message;
  }
  EXPECT_EQ(run_error(two_batches, KernelFamily::kTflmReference), "");
}

TEST(CmsisNnPool, FloatAndUint8RunTheReferenceKernels) {
  for (KernelFamily family : kCmsisFamilies) {
    for (DataType type : {DataType::kFloat32, DataType::kUInt8}) {
      for (OpKind kind : {OpKind::kAveragePool2D, OpKind::kMaxPool2D}) {
        const OneOp m = pool(kind, type, 1, 4, 4, 2, 2, 2, 2, 2, Padding::kValid);
        EXPECT_EQ(selection(m, family).implementation, "");
        EXPECT_TRUE(selection(m, family).scratch.empty());
      }
    }
  }
}

TEST(CmsisNnPool, ComputesTfliteValues) {
  // 1x2x2x2 int8 averaged over its whole 2x2 window: sums 5 (ch 0) and -6
  // (ch 1) over 4 taps, rounded half away from zero: 1.25 -> 1, -1.5 -> -2.
  const OneOp avg = pool(OpKind::kAveragePool2D, DataType::kInt8, 1, 2, 2, 2, 2, 2, 1, 1, Padding::kValid);
  const OneOp max = pool(OpKind::kMaxPool2D, DataType::kInt8, 1, 2, 2, 2, 2, 2, 1, 1, Padding::kValid);
  // RELU6 on scale 0.05, zero point -2: the output is clamped to [-2, 118].
  const OneOp max_relu6 =
      pool(OpKind::kMaxPool2D, DataType::kInt8, 1, 2, 2, 2, 2, 2, 1, 1, Padding::kValid, Activation::kRelu6);
  const std::vector<int8_t> input = {3, -1, -2, -4, 1, 0, 3, -1};
  const std::vector<int16_t> input16 = {3, -1, -2, -4, 1, 0, 3, -1};
  const OneOp avg16 = pool(OpKind::kAveragePool2D, DataType::kInt16, 1, 2, 2, 2, 2, 2, 1, 1, Padding::kValid);
  for (KernelFamily family : kCmsisFamilies) {
    EXPECT_EQ(values_from<int8_t>(run_family(avg, family, bytes_of(input))), (std::vector<int8_t>{1, -2}));
    EXPECT_EQ(values_from<int8_t>(run_family(max, family, bytes_of(input))), (std::vector<int8_t>{3, 0}));
    EXPECT_EQ(values_from<int8_t>(run_family(max_relu6, family, bytes_of<int8_t>({127, -9, 100, -7, 5, -8, 0, -128}))),
              (std::vector<int8_t>{118, -2}));
    EXPECT_EQ(values_from<int16_t>(run_family(avg16, family, bytes_of(input16))), (std::vector<int16_t>{1, -2}));
  }
}

TEST(CmsisNnPool, SafeOverlapOfTypicalShapes) {
  std::mt19937 rng(3);
  // 2x2 stride 2 over 8x8x8, and a 3x3 stride 1 SAME pool over 6x6x4.
  const OneOp avg_2x2 = pool(OpKind::kAveragePool2D, DataType::kInt8, 1, 8, 8, 8, 2, 2, 2, 2, Padding::kValid);
  const OneOp avg_3x3 = pool(OpKind::kAveragePool2D, DataType::kInt8, 1, 6, 6, 4, 3, 3, 1, 1, Padding::kSame);
  const int64_t reference_2x2 = addresses(avg_2x2, KernelFamily::kTflmReference).safe_overlap();
  const int64_t reference_3x3 = addresses(avg_3x3, KernelFamily::kTflmReference).safe_overlap();
  // The portable path is TFLM's order; the DSP path reads a pixel's whole
  // window before storing any of its channels.
  EXPECT_EQ(expect_tight_overlap(avg_2x2, kPortable, graph_input_bytes(avg_2x2, rng), "avg 2x2"), reference_2x2);
  EXPECT_EQ(expect_tight_overlap(avg_3x3, kPortable, graph_input_bytes(avg_3x3, rng), "avg 3x3"), reference_3x3);
  EXPECT_EQ(reference_2x2, 128);  // the whole output
  EXPECT_EQ(expect_tight_overlap(avg_2x2, kDsp, graph_input_bytes(avg_2x2, rng), "avg 2x2 dsp"), 128);
  EXPECT_EQ(reference_3x3, 116);
  EXPECT_EQ(expect_tight_overlap(avg_3x3, kDsp, graph_input_bytes(avg_3x3, rng), "avg 3x3 dsp"), 116);
}

TEST(CmsisNnPool, MaxPoolCopiesItsFirstTapInTheCopysWorstOrder) {
  std::mt19937 rng(4);
  const OneOp max = pool(OpKind::kMaxPool2D, DataType::kInt8, 1, 8, 8, 8, 2, 2, 2, 2, Padding::kValid);
  EXPECT_EQ(addresses(max, KernelFamily::kTflmReference).safe_overlap(), 128);
  for (KernelFamily family : kCmsisFamilies) {
    // The first tap's memcpy is taken as all its stores before its loads:
    // output pixel 0's copy (input bytes 0..7 to output bytes 0..7) binds,
    // 128 - 8 bytes.
    EXPECT_EQ(expect_tight_copy_overlap(max, family, graph_input_bytes(max, rng), std::string(kernel_family_name(family))), 120);
  }
  // 1x1 windows: each pixel is a memcpy from the same offset; with the
  // output 4 bytes below the input, pixel 1's copy reads bytes pixel 0's
  // copy is about to overwrite, partly overlapping: a clobber.
  const OneOp identity = pool(OpKind::kMaxPool2D, DataType::kInt8, 1, 1, 4, 8, 1, 1, 1, 1, Padding::kValid);
  EXPECT_TRUE(clobbers_at_overlap(identity, 28, graph_input_bytes(identity, rng), kPortable));
}

// ------------------------------------------------------------- ADD and MUL

TEST(CmsisNnAddMul, SelectsTheElementwiseFunctions) {
  const Shape s = {1, 3, 3, 3};
  EXPECT_EQ(selection(binary(OpKind::kAdd, DataType::kInt8, s, s, s, 0), kPortable).implementation,
            "arm_elementwise_add_s8 (portable C)");
  EXPECT_EQ(selection(binary(OpKind::kAdd, DataType::kInt8, s, s, s, 0), kDsp).implementation,
            "arm_elementwise_add_s8 (DSP)");
  EXPECT_EQ(selection(binary(OpKind::kAdd, DataType::kInt16, s, s, s, 0), kDsp).implementation, "arm_elementwise_add_s16");
  EXPECT_EQ(selection(binary(OpKind::kMul, DataType::kInt8, s, s, s, 0), kDsp).implementation,
            "arm_elementwise_mul_s8 (DSP)");
  EXPECT_EQ(selection(binary(OpKind::kMul, DataType::kInt16, s, s, s, 0), kPortable).implementation,
            "arm_elementwise_mul_s16");
  // Same shape once extended with leading ones: no broadcast for the glue.
  EXPECT_EQ(selection(binary(OpKind::kAdd, DataType::kInt8, {3, 3}, {1, 3, 3}, {1, 3, 3}, 0), kPortable).implementation,
            "arm_elementwise_add_s8 (portable C)");
  EXPECT_TRUE(selection(binary(OpKind::kMul, DataType::kInt8, s, s, s, 0), kDsp).scratch.empty());
}

TEST(CmsisNnAddMul, Int16AddNeedsZeroPointsZero) {
  GraphBuilder b("int16 add with a zero point");
  OneOp m;
  const int32_t x = b.add_tensor("a", DataType::kInt16, {4}, per_tensor(0.001f, 3));
  const int32_t y = b.add_tensor("b", DataType::kInt16, {4}, per_tensor(0.001f, 0));
  m.output = b.add_tensor("output", DataType::kInt16, {4}, per_tensor(0.002f, 0));
  m.input = x;
  m.graph = finish_one_op(b, OpKind::kAdd, {x, y}, {x, y}, m.output, ElementwiseParams{});
  for (KernelFamily family : kCmsisFamilies) {
    const std::string message = run_error(m, family);
    EXPECT_NE(message.find("op 0 (ADD): INT16 operands must have zero point 0"), std::string::npos) << message;
  }
  EXPECT_EQ(run_error(m, KernelFamily::kTflmReference), "");
}

TEST(CmsisNnAddMul, BroadcastsFloatsAndInt32RunTheReferenceKernels) {
  for (KernelFamily family : kCmsisFamilies) {
    for (OpKind kind : {OpKind::kAdd, OpKind::kMul}) {
      EXPECT_EQ(selection(binary(kind, DataType::kInt8, {2, 3}, {1, 3}, {2, 3}, 0), family).implementation, "");
      EXPECT_EQ(selection(binary(kind, DataType::kInt16, {2, 3}, {3}, {2, 3}, 0), family).implementation, "");
      EXPECT_EQ(selection(binary(kind, DataType::kFloat32, {4}, {4}, {4}, 0), family).implementation, "");
      EXPECT_EQ(selection(binary(kind, DataType::kInt32, {4}, {4}, {4}, 0), family).implementation, "");
    }
  }
}

TEST(CmsisNnAddMul, ComputesTfliteValues) {
  // ADD int8: a (scale 0.04, zp 5) + b (0.03, -7) -> (0.06, 2).
  // a = 30 -> 1.0, b = 43 -> 1.5: 2.5 / 0.06 = 41.67 -> 42 + 2 = 44;
  // a = -128 -> -5.32, b = -128 -> -3.63: -8.95 / 0.06 -> -149 + 2 -> -128;
  // a = 10 -> 0.2, b = -17 -> -0.3: -0.1 / 0.06 = -1.67 -> -2 + 2 = 0.
  const Shape s = {5};
  const OneOp add = binary(OpKind::kAdd, DataType::kInt8, s, s, s, 0);
  // MUL int8: 1.0 * 1.5 = 1.5 / 0.06 = 25 + 2 = 27; 0.2 * -0.3 = -0.06 -> -1 + 2 = 1.
  const OneOp mul = binary(OpKind::kMul, DataType::kInt8, s, s, s, 0);
  const std::vector<uint8_t> inputs = [] {
    std::vector<uint8_t> bytes = bytes_of<int8_t>({30, -128, 10, 5, 127});
    const std::vector<uint8_t> second = bytes_of<int8_t>({43, -128, -17, -7, 127});
    bytes.insert(bytes.end(), second.begin(), second.end());
    return bytes;
  }();
  for (KernelFamily family : kCmsisFamilies) {
    EXPECT_EQ(values_from<int8_t>(run_family(add, family, inputs)), (std::vector<int8_t>{44, -128, 0, 2, 127}))
        << kernel_family_name(family);
    EXPECT_EQ(values_from<int8_t>(run_family(mul, family, inputs)), (std::vector<int8_t>{27, 127, 1, 2, 127}))
        << kernel_family_name(family);
  }
  // MUL int16 (zero points 0): 0.0005 * 0.0003 / 0.001 = 0.00015 per unit product:
  // 1000 * 2000 -> 300; -1000 * 2000 -> -300; 32767 * 32767 -> saturates to 32767.
  const OneOp mul16 = binary(OpKind::kMul, DataType::kInt16, {3}, {3}, {3}, 0);
  std::vector<uint8_t> inputs16 = bytes_of<int16_t>({1000, -1000, 32767});
  const std::vector<uint8_t> second16 = bytes_of<int16_t>({2000, 2000, 32767});
  inputs16.insert(inputs16.end(), second16.begin(), second16.end());
  for (KernelFamily family : kCmsisFamilies) {
    EXPECT_EQ(values_from<int16_t>(run_family(mul16, family, inputs16)), (std::vector<int16_t>{300, -300, 32767}));
  }
}

TEST(CmsisNnAddMul, SafeOverlapOfTypicalShapes) {
  std::mt19937 rng(5);
  // A residual ADD of 1x5x5x3 (75 elements: 18 words and a 3-element tail on DSP).
  for (OpKind kind : {OpKind::kAdd, OpKind::kMul}) {
    for (int which : {0, 1}) {
      const OneOp m = binary(kind, DataType::kInt8, {1, 5, 5, 3}, {1, 5, 5, 3}, {1, 5, 5, 3}, which);
      const std::vector<uint8_t> input = graph_input_bytes(m, rng);
      // Output i is stored after input i is read in every family (the DSP
      // path reads a word ahead): the whole output may overlap.
      EXPECT_EQ(addresses(m, KernelFamily::kTflmReference).safe_overlap(), 75);
      EXPECT_EQ(expect_tight_overlap(m, kPortable, input, "portable"), 75);
      EXPECT_EQ(expect_tight_overlap(m, kDsp, input, "dsp"), 75);
    }
  }
  // INT16 ADD and MUL in pairs: 7 elements, the last alone.
  for (OpKind kind : {OpKind::kAdd, OpKind::kMul}) {
    const OneOp m16 = binary(kind, DataType::kInt16, {7}, {7}, {7}, 1);
    for (KernelFamily family : kCmsisFamilies) {
      EXPECT_EQ(expect_tight_overlap(m16, family, graph_input_bytes(m16, rng), "int16"), 14);
    }
  }
}

// ------------------------------------------------------------- SOFTMAX

TEST(CmsisNnSoftmax, SelectsTheS8FunctionsAndFallsBackForFloat) {
  EXPECT_EQ(selection(softmax(DataType::kInt8, DataType::kInt8, 2, 10), kPortable).implementation, "arm_softmax_s8");
  EXPECT_EQ(selection(softmax(DataType::kInt8, DataType::kInt16, 2, 10), kDsp).implementation, "arm_softmax_s8_s16");
  EXPECT_TRUE(selection(softmax(DataType::kInt8, DataType::kInt8, 2, 10), kDsp).scratch.empty());
  EXPECT_EQ(selection(softmax(DataType::kFloat32, DataType::kFloat32, 2, 10), kDsp).implementation, "");
  // INT32 input: neither the reference kernel nor dmo's cmsis kernels run it.
  const std::string message = run_error(softmax(DataType::kInt32, DataType::kInt32, 2, 10), kPortable);
  EXPECT_NE(message.find("op 0 (SOFTMAX): input type INT32 is not supported"), std::string::npos) << message;
}

TEST(CmsisNnSoftmax, ComputesTfliteValues) {
  // Equal inputs: each of 4 gets 1/4 = 64/256 -> 64 - 128 = -64, and
  // 16384/65536 -> 16384 - 32768 = -16384.
  for (KernelFamily family : kCmsisFamilies) {
    EXPECT_EQ(values_from<int8_t>(run_family(softmax(DataType::kInt8, DataType::kInt8, 1, 4), family,
                                             bytes_of<int8_t>({9, 9, 9, 9}))),
              (std::vector<int8_t>{-64, -64, -64, -64}));
    EXPECT_EQ(values_from<int16_t>(run_family(softmax(DataType::kInt8, DataType::kInt16, 1, 4), family,
                                              bytes_of<int8_t>({-3, -3, -3, -3}))),
              (std::vector<int16_t>{-16384, -16384, -16384, -16384}));
    // One dominant element (a difference of 100 * 0.1 = 10): e^-10 is 0 in
    // 1/256 units, so 1.0 saturates to 127 and the rest are -128.
    EXPECT_EQ(values_from<int8_t>(run_family(softmax(DataType::kInt8, DataType::kInt8, 1, 3), family,
                                             bytes_of<int8_t>({100, 0, 0}))),
              (std::vector<int8_t>{127, -128, -128}));
  }
}

TEST(CmsisNnSoftmax, SafeOverlapOfTypicalShapes) {
  std::mt19937 rng(6);
  const OneOp to8 = softmax(DataType::kInt8, DataType::kInt8, 1, 12);
  const OneOp to16 = softmax(DataType::kInt8, DataType::kInt16, 3, 10);
  for (KernelFamily family : kCmsisFamilies) {
    EXPECT_EQ(expect_tight_overlap(to8, family, graph_input_bytes(to8, rng), "softmax s8"),
              addresses(to8, KernelFamily::kTflmReference).safe_overlap());
    EXPECT_EQ(expect_tight_overlap(to16, family, graph_input_bytes(to16, rng), "softmax s8_s16"),
              addresses(to16, KernelFamily::kTflmReference).safe_overlap());
  }
  EXPECT_EQ(addresses(to8, kDsp).safe_overlap(), 12);
  EXPECT_EQ(addresses(to16, kPortable).safe_overlap(), 31);
}

// ------------------------------------------------------------- random shapes

TEST(CmsisNnProperty, SafeOverlapIsTightOnRandomShapes) {
  std::mt19937 rng(20261201);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int checked = 0;
  for (int trial = 0; trial < 360; ++trial) {
    const KernelFamily family = kCmsisFamilies[static_cast<size_t>(trial % 2)];
    OneOp m;
    std::string what;
    switch ((trial / 2) % 6) {
      case 0: {  // units around multiples of 2 and 3, depth around multiples of 4
        const int batches = pick(1, 5), depth = pick(1, 13), units = pick(1, 8);
        m = fully_connected(batches, depth, units, pick(0, 1) == 1, rng,
                            pick(0, 1) ? Activation::kRelu : Activation::kNone, /*keep_num_dims=*/pick(0, 1) == 1);
        what = "fc " + std::to_string(batches) + "x" + std::to_string(depth) + "->" + std::to_string(units);
        break;
      }
      case 1:
      case 2: {
        const OpKind kind = (trial / 2) % 6 == 1 ? OpKind::kAveragePool2D : OpKind::kMaxPool2D;
        const DataType type = pick(0, 1) ? DataType::kInt8 : DataType::kInt16;
        const int h = pick(1, 7), w = pick(1, 7), c = pick(1, 6), kh = pick(1, 3), kw = pick(1, 3);
        const int sh = pick(1, 3), sw = pick(1, 3);
        const Padding padding = pick(0, 1) ? Padding::kSame : Padding::kValid;
        if (window_output_size(padding, h, kh, sh, 1) < 1 || window_output_size(padding, w, kw, sw, 1) < 1) continue;
        m = pool(kind, type, 1, h, w, c, kh, kw, sh, sw, padding);
        what = fmt::format("{} pool {} 1x{}x{}x{} window {}x{} stride {}x{} {}", kind == OpKind::kMaxPool2D ? "max" : "avg",
                           data_type_name(type), h, w, c, kh, kw, sh, sw, padding == Padding::kSame ? "same" : "valid");
        break;
      }
      case 3:
      case 4: {
        const OpKind kind = (trial / 2) % 6 == 3 ? OpKind::kAdd : OpKind::kMul;
        const DataType type = pick(0, 1) ? DataType::kInt8 : DataType::kInt16;
        const Shape s = {pick(1, 3), pick(1, 9)};
        m = binary(kind, type, s, s, s, pick(0, 1));
        what = kind == OpKind::kAdd ? "add" : "mul";
        break;
      }
      default: {
        m = softmax(DataType::kInt8, pick(0, 1) ? DataType::kInt8 : DataType::kInt16, pick(1, 4), pick(1, 20));
        what = "softmax";
        break;
      }
    }
    const std::vector<uint8_t> input = graph_input_bytes(m, rng);
    what += std::string(" ") + std::string(kernel_family_name(family)) + " trial " + std::to_string(trial);
    if (m.graph.main().ops[0].builtin_code == static_cast<int32_t>(OpKind::kMaxPool2D)) {
      expect_tight_copy_overlap(m, family, input, what);
    } else {
      expect_tight_overlap(m, family, input, what);
    }
    ++checked;
  }
  EXPECT_GT(checked, 300);
}

// ------------------------------------------------------------- shared models

bool is_this_files_kind(int32_t builtin_code) {
  switch (static_cast<OpKind>(builtin_code)) {
    case OpKind::kFullyConnected:
    case OpKind::kAveragePool2D:
    case OpKind::kMaxPool2D:
    case OpKind::kAdd:
    case OpKind::kMul:
    case OpKind::kSoftmax: return true;
    default: return false;
  }
}

// Whether FULLY_CONNECTED op `op` runs as arm_convolve_1x1_s8_fast under `family`.
bool is_fully_connected_as_conv(const Graph& graph, int32_t op, KernelFamily family) {
  Schedule schedule = default_schedule(graph);
  schedule.kernels = family;
  const Interpreter interpreter(graph, unshared_placement(graph.main()), schedule);
  return interpreter.prepared(op).implementation.starts_with("arm_convolve_1x1_s8_fast");
}

// Pooling op `o` of `main` alone in a graph: its kind, type, shape, window,
// strides, padding and activation (this file's quantization).
OneOp pool_alone(const Subgraph& main, const Op& o) {
  const Tensor& in = main.tensors[static_cast<size_t>(o.inputs[0])];
  const auto& p = std::get<Pool2DParams>(o.params);
  return pool(static_cast<OpKind>(o.builtin_code), in.type, in.shape.at(0), in.shape.at(1), in.shape.at(2),
              in.shape.at(3), p.filter_h, p.filter_w, p.stride_h, p.stride_w, p.padding, p.activation);
}

// Every op of the shared models that the glue sends to CMSIS-NN (in the
// main subgraph) computes the reference kernel's bytes in both families on
// random inputs. The CMSIS-NN functions read ahead of the reference or in
// its order, so the O_s against each activation input is never below the
// reference kernel's, except MAX_POOL_2D's memcpy'd first tap (each copy in
// its worst order: checked tight on the op alone) and the 1x1-convolution
// FULLY_CONNECTED, which reads the input again per unit pair.
TEST(CmsisNnSharedModels, OpsComputeTheReferenceBytesWithTheirSafeOverlaps) {
  DMO_REQUIRE_SHARED(shared);
  std::mt19937 rng(7);
  int cmsis_ops = 0;
  for (const std::string& path : test::tflite_files_in(shared + "/models")) {
    Graph graph;
    try {
      graph = read_tflite_file(path);
    } catch (const Error&) {
      continue;  // files dmo refuses are tested elsewhere
    }
    const Subgraph& main = graph.main();
    std::vector<int32_t> ops;
    for (KernelFamily family : kCmsisFamilies) {
      Schedule schedule = default_schedule(graph);
      schedule.kernels = family;
      const Interpreter interpreter(graph, unshared_placement(main), schedule);
      for (size_t op = 0; op < main.ops.size(); ++op) {
        if (!is_this_files_kind(main.ops[op].builtin_code)) continue;
        try {
          if (!interpreter.prepared(static_cast<int32_t>(op)).implementation.empty()) {
            ops.push_back(static_cast<int32_t>(op));
          }
        } catch (const Error&) {
        }
      }
    }
    if (ops.empty()) continue;
    std::sort(ops.begin(), ops.end());
    ops.erase(std::unique(ops.begin(), ops.end()), ops.end());

    const Interpreter sizing(graph, unshared_placement(main));
    const std::vector<uint8_t> input = random_bytes(rng, sizing.input_bytes());
    auto run_all = [&](KernelFamily family) {
      Schedule schedule = default_schedule(graph);
      schedule.kernels = family;
      Interpreter interpreter(graph, unshared_placement(main), schedule);
      interpreter.set_inputs(input);
      interpreter.run();
      std::vector<std::vector<uint8_t>> tensors;
      for (int32_t op : ops) tensors.push_back(interpreter.tensor_contents(main.ops[static_cast<size_t>(op)].outputs[0]));
      return tensors;
    };
    const auto reference = run_all(KernelFamily::kTflmReference);
    const std::string model = path.substr(path.find_last_of('/') + 1);
    for (KernelFamily family : kCmsisFamilies) {
      EXPECT_EQ(run_all(family), reference) << model << " in " << kernel_family_name(family);
    }
    for (int32_t op : ops) {
      const Op& o = main.ops[static_cast<size_t>(op)];
      const size_t activations = o.builtin_code == static_cast<int32_t>(OpKind::kAdd) ||
                                         o.builtin_code == static_cast<int32_t>(OpKind::kMul)
                                     ? 2
                                     : 1;
      for (size_t i = 0; i < activations; ++i) {
        const int32_t in = o.inputs[i];
        if (in < 0 || main.tensors[static_cast<size_t>(in)].is_constant) continue;
        const int64_t os_reference = algorithmic_safe_overlap(graph, op, in, o.outputs[0]);
        std::array<int64_t, 2> os{};
        for (size_t f = 0; f < kCmsisFamilies.size(); ++f) {
          const KernelFamily family = kCmsisFamilies[f];
          os[f] = algorithmic_safe_overlap(graph, op, in, o.outputs[0], false, family);
          if (o.builtin_code == static_cast<int32_t>(OpKind::kMaxPool2D)) {
            // The same pool alone gets the model op's O_s, clean there, a
            // clobber a byte beyond.
            const OneOp alone = pool_alone(main, o);
            EXPECT_EQ(expect_tight_copy_overlap(alone, family, graph_input_bytes(alone, rng),
                                                model + " op " + std::to_string(op)),
                      os[f]);
          } else if (!is_fully_connected_as_conv(graph, op, family)) {
            EXPECT_GE(os[f], os_reference) << model << " op " << op << " in " << kernel_family_name(family);
          }
        }
        std::printf("[ O_s      ] %s op %d %s input %zu: tflm-reference %lld, cmsis-nn %lld, cmsis-nn-dsp %lld\n",
                    model.c_str(), op, builtin_op_name(o.builtin_code).c_str(), i,
                    static_cast<long long>(os_reference), static_cast<long long>(os[0]),
                    static_cast<long long>(os[1]));
      }
      ++cmsis_ops;
    }
  }
  EXPECT_GT(cmsis_ops, 0);
}

}  // namespace
}  // namespace dmo

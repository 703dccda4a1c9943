// TRANSPOSE_CONV in the cmsis-nn and cmsis-nn-dsp families: which path
// arm_transpose_conv_wrapper_s8 takes and the scratch TFLM's glue requests
// for it, hand-computed int8 values, the algorithmic safe overlap of each
// path (no clobber at O_s, a clobber one byte beyond, TFLM's reference
// bytes when sharing) on typical shapes and a few hundred random ones,
// and what the families leave to TFLM's reference kernel or refuse.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "dmo/ops/cmsis_nn_coverage.h"
#include "dmo/runtime/interpreter.h"
#include "dmo/tflite/graph_writer.h"
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
using test::schedule_for;

constexpr std::array<KernelFamily, 2> kCmsisFamilies = {KernelFamily::kCmsisNn, KernelFamily::kCmsisNnDsp};

struct Layer {
  int32_t batches = 1, height = 4, width = 4, channels = 8, out_channels = 4;
  int32_t filter_height = 3, filter_width = 3;
  int32_t stride_height = 1, stride_width = 1;
  Padding padding = Padding::kSame;

  std::string describe() const {
    return fmt::format("{}x{}x{}x{}->{} k{}x{} s{}x{} {}", batches, height, width, channels, out_channels,
                       filter_height, filter_width, stride_height, stride_width,
                       padding == Padding::kSame ? "SAME" : "VALID");
  }
  // TFLite's output size: SAME in * stride, VALID adds what the filter
  // reaches past the last stride.
  static int32_t output_size(Padding padding, int32_t in, int32_t filter, int32_t stride) {
    return padding == Padding::kSame ? in * stride : (in - 1) * stride + std::max(filter, stride);
  }
  int32_t output_height() const { return output_size(padding, height, filter_height, stride_height); }
  int32_t output_width() const { return output_size(padding, width, filter_width, stride_width); }
  TransposeConvParams params() const { return {padding, stride_width, stride_height, Activation::kNone}; }
};

// The TRANSPOSE_CONV operands in TFLite's order: output_shape, filter,
// input, optional bias.
OneOp transpose_conv(const Layer& l, DataType type, DataType filter_type, const std::vector<uint8_t>& filter_data,
                     Quantization filter_quant, DataType bias_type, const std::vector<uint8_t>& bias_data,
                     Quantization input_quant, Quantization output_quant, Shape output_shape = {}) {
  if (output_shape.empty()) output_shape = {l.batches, l.output_height(), l.output_width(), l.out_channels};
  GraphBuilder b("cmsis_nn_transpose_conv_test");
  OneOp m;
  const std::vector<int32_t> dims(output_shape.begin(), output_shape.end());
  const int32_t shape = b.add_constant_values<int32_t>("output_shape", DataType::kInt32, {4}, dims);
  const int32_t filter = b.add_constant(
      "filter", filter_type, {l.out_channels, l.filter_height, l.filter_width, l.channels}, filter_data, filter_quant);
  m.input = b.add_tensor("input", type, {l.batches, l.height, l.width, l.channels}, input_quant);
  std::vector<int32_t> inputs = {shape, filter, m.input};
  if (!bias_data.empty()) inputs.push_back(b.add_constant("bias", bias_type, {l.out_channels}, bias_data));
  m.output = b.add_tensor("output", type, output_shape, output_quant);
  b.add_op(OpKind::kTransposeConv, inputs, {m.output}, l.params());
  b.set_inputs({m.input});
  b.set_outputs({m.output});
  m.graph = b.finish();
  return m;
}

// An int8 layer with per-channel filter scales, random weights, biases and
// zero points drawn from `rng`.
OneOp int8_layer(const Layer& l, std::mt19937& rng, bool with_bias = true, Shape output_shape = {}) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  std::vector<int8_t> weights(static_cast<size_t>(l.out_channels * l.filter_height * l.filter_width * l.channels));
  for (int8_t& w : weights) w = static_cast<int8_t>(pick(-127, 127));
  Quantization filter_quant;
  for (int32_t c = 0; c < l.out_channels; ++c) {
    filter_quant.scale.push_back(0.0005f * static_cast<float>(pick(1, 20)));
    filter_quant.zero_point.push_back(0);
  }
  std::vector<int32_t> biases(static_cast<size_t>(l.out_channels));
  for (int32_t& v : biases) v = pick(-3000, 3000);
  return transpose_conv(l, DataType::kInt8, DataType::kInt8, bytes_of(weights), filter_quant, DataType::kInt32,
                        with_bias ? bytes_of(biases) : std::vector<uint8_t>{}, per_tensor(0.05f, pick(-8, 8)),
                        per_tensor(0.1f, pick(-8, 8)), output_shape);
}

std::vector<uint8_t> random_bytes(std::mt19937& rng, int64_t n) {
  std::vector<uint8_t> bytes(static_cast<size_t>(n));
  for (uint8_t& v : bytes) v = static_cast<uint8_t>(std::uniform_int_distribution<int>(0, 255)(rng));
  return bytes;
}

const PreparedKernel& prepared_of(const Interpreter& interpreter) { return interpreter.prepared(0); }

std::string implementation_of(const OneOp& m, KernelFamily family) {
  const Interpreter interpreter(m.graph, unshared_placement(m.graph.main()), schedule_for(m, family));
  return prepared_of(interpreter).implementation;
}

std::vector<KernelScratch> scratch_of(const OneOp& m, KernelFamily family) {
  const Interpreter interpreter(m.graph, unshared_placement(m.graph.main()), schedule_for(m, family));
  return prepared_of(interpreter).scratch;
}

std::vector<uint8_t> output_of(const OneOp& m, const std::vector<uint8_t>& input,
                               KernelFamily family = KernelFamily::kTflmReference) {
  Interpreter interpreter(m.graph, unshared_placement(m.graph.main()), schedule_for(m, family));
  interpreter.set_inputs(input);
  interpreter.run();
  const auto contents = interpreter.tensor_contents(m.output);
  return {contents.begin(), contents.end()};
}

// O_s of `family` on `m`: no clobber there (and TFLM's reference bytes), a
// clobber one byte (one int8 element) beyond unless O_s already covers
// the whole input or output.
int64_t checked_safe_overlap(const OneOp& m, KernelFamily family, const std::vector<uint8_t>& input,
                             const std::string& what) {
  const int64_t os = addresses(m, family).safe_overlap();
  EXPECT_FALSE(clobbers_at_overlap(m, os, input, family)) << what << " " << kernel_family_name(family) << " O_s " << os;
  if (os < std::min(test::bytes_of_tensor(m, m.input), test::bytes_of_tensor(m, m.output))) {
    EXPECT_TRUE(clobbers_at_overlap(m, os + 1, input, family))
        << what << " " << kernel_family_name(family) << " O_s " << os;
  }
  return os;
}

const std::string kRows = "arm_transpose_conv_wrapper_s8 -> arm_transpose_conv_s8";
const std::string kReverse = "arm_transpose_conv_wrapper_s8 -> arm_convolve_s8 (reverse conv, upscaled input";

std::string expected_implementation(const Layer& l, KernelFamily family) {
  const bool reverse = l.stride_height <= 2 && l.stride_width <= 2 && l.channels > 16;
  const std::string variant = family == KernelFamily::kCmsisNnDsp ? "DSP" : "portable";
  return reverse ? kReverse + ", " + variant + ")" : kRows + " (" + variant + ")";
}

// ---------------------------------------------------------------- selection and scratch

TEST(CmsisNnTransposeConv, WrapperTakesTheReverseConvOnlyForSmallStridesAndMoreThan16Channels) {
  std::mt19937 rng(3);
  struct Case {
    Layer layer;
    bool reverse;
  };
  const std::vector<Case> cases = {
      {{1, 4, 4, 8, 4, 3, 3, 1, 1, Padding::kSame}, false},   // few channels
      {{1, 4, 4, 16, 4, 3, 3, 2, 2, Padding::kSame}, false},  // 16 is not above the threshold
      {{1, 4, 4, 17, 4, 3, 3, 1, 1, Padding::kSame}, true},
      {{1, 4, 4, 24, 4, 3, 3, 2, 2, Padding::kSame}, true},
      {{1, 4, 4, 24, 4, 3, 3, 2, 1, Padding::kValid}, true},
      {{1, 4, 4, 24, 4, 3, 3, 3, 3, Padding::kSame}, false},  // stride 3
      {{1, 4, 4, 24, 4, 3, 3, 1, 3, Padding::kValid}, false},
  };
  for (const Case& c : cases) {
    const OneOp m = int8_layer(c.layer, rng);
    for (KernelFamily family : kCmsisFamilies) {
      const std::string name = implementation_of(m, family);
      EXPECT_EQ(name, expected_implementation(c.layer, family)) << c.layer.describe();
      EXPECT_EQ(name.find("reverse conv") != std::string::npos, c.reverse) << c.layer.describe();
    }
  }
}

TEST(CmsisNnTransposeConv, ScratchIsWhatTheGlueRequests) {
  std::mt19937 rng(5);
  for (KernelFamily family : kCmsisFamilies) {
    // Rolling rows: ((4 - 1) * 2 + max(3, 2)) * 4 channels * max(3, 2) rows
    // * 4 bytes = 432; the reverse-conv request is 0 bytes.
    const auto rows = scratch_of(int8_layer({1, 4, 4, 8, 4, 3, 3, 2, 2, Padding::kSame}, rng), family);
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].bytes, 432);
    // Reverse conv, 24 channels 3x3 into 6: two int16 columns of 216 = 864
    // bytes, and the flipped filter 24 * 3 * 3 * 6 = 1296 bytes.
    const auto reverse = scratch_of(int8_layer({1, 4, 4, 24, 6, 3, 3, 2, 2, Padding::kSame}, rng), family);
    ASSERT_EQ(reverse.size(), 2u);
    EXPECT_EQ(reverse[0].bytes, 864);
    EXPECT_EQ(reverse[1].bytes, 1296);
    // 3x3 with 17 channels: 153 columns align to 156, 2 * 156 * 2 = 624.
    const auto aligned = scratch_of(int8_layer({1, 3, 3, 17, 2, 3, 3, 1, 1, Padding::kValid}, rng), family);
    ASSERT_EQ(aligned.size(), 2u);
    EXPECT_EQ(aligned[0].bytes, 624);
    EXPECT_EQ(aligned[1].bytes, 17 * 9 * 2);
    // Strides 1 (height) and 3 (width), 1x1 filter, 5 columns into 2
    // channels: CMSIS-NN's size function takes the height stride in the
    // width term, ((5 - 1) * 3 + max(1, 1)) * 2 * 1 * 4 = 104 bytes,
    // though the kernel's rows are ((5 - 1) * 3 + 3) * 2 int32s wide.
    const auto unequal = scratch_of(int8_layer({1, 2, 5, 4, 2, 1, 1, 1, 3, Padding::kValid}, rng), family);
    ASSERT_EQ(unequal.size(), 1u);
    EXPECT_EQ(unequal[0].bytes, 104);
  }
}

// ---------------------------------------------------------------- values

// 2x2 input, one channel, filter [1 2; 3 4], stride 2 VALID: each input
// pixel paints its own 2x2 block. Scales 1 and zero points 0 except where
// said.
OneOp blocks(int64_t input_zero_point, const std::vector<int32_t>& bias) {
  const Layer l{1, 2, 2, 1, 1, 2, 2, 2, 2, Padding::kValid};
  return transpose_conv(l, DataType::kInt8, DataType::kInt8, bytes_of(std::vector<int8_t>{1, 2, 3, 4}),
                        per_tensor(1.0f, 0), DataType::kInt32, bias.empty() ? std::vector<uint8_t>{} : bytes_of(bias),
                        per_tensor(1.0f, input_zero_point), per_tensor(1.0f, 0));
}

TEST(CmsisNnTransposeConv, Int8ValuesAreTflmsOnTheRowsPath) {
  for (KernelFamily family : kCmsisFamilies) {
    const OneOp plain = blocks(0, {});
    EXPECT_EQ(implementation_of(plain, family), expected_implementation({1, 2, 2, 1, 1, 2, 2, 2, 2}, family));
    EXPECT_EQ(test::values_from<int8_t>(output_of(plain, bytes_of(std::vector<int8_t>{1, 2, 3, 4}), family)),
              (std::vector<int8_t>{1, 2, 2, 4, 3, 4, 6, 8, 3, 6, 4, 8, 9, 12, 12, 16}));
    // Input zero point 1 (each input counts one less: 0, 100, -128, 1),
    // bias 100: 100 * 2 + 100 saturates to 127, -128 * 2 + 100 to -128.
    const OneOp offset = blocks(1, {100});
    EXPECT_EQ(test::values_from<int8_t>(output_of(offset, bytes_of(std::vector<int8_t>{1, 101, -127, 2}), family)),
              (std::vector<int8_t>{100, 100, 127, 127, 100, 100, 127, 127, -28, -128, 101, 102, -128, -128, 103, 104}));
  }
}

TEST(CmsisNnTransposeConv, Int8ValuesAreTflmsOnTheReverseConvPath) {
  // 17 channels of 1 into a 1x1 filter of ones, stride 1: each output is
  // the channel sum 17 * x plus the bias 3, requantized by 0.5 (round half
  // away from zero: 37 / 2 = 18.5 -> 19).
  const Layer l{1, 1, 2, 17, 1, 1, 1, 1, 1, Padding::kValid};
  const OneOp m =
      transpose_conv(l, DataType::kInt8, DataType::kInt8, bytes_of(std::vector<int8_t>(17, 1)), per_tensor(0.5f, 0),
                     DataType::kInt32, bytes_of(std::vector<int32_t>{3}), per_tensor(1.0f, 0), per_tensor(1.0f, 0));
  std::vector<int8_t> input(17, 2);
  input.insert(input.end(), 17, -3);
  for (KernelFamily family : kCmsisFamilies) {
    EXPECT_EQ(implementation_of(m, family), expected_implementation(l, family));
    EXPECT_EQ(test::values_from<int8_t>(output_of(m, bytes_of(input), family)), (std::vector<int8_t>{19, -24}));
  }
}

// ---------------------------------------------------------------- safe overlap

struct Figure {
  Layer layer;
  int64_t reference = 0, portable = 0, dsp = 0;
};

TEST(CmsisNnTransposeConv, SafeOverlapOfTypicalShapesHoldsInBothFamilies) {
  std::mt19937 rng(7);
  std::vector<Figure> figures;
  for (int32_t channels : {8, 24}) {
    for (int32_t stride : {1, 2}) {
      for (Padding padding : {Padding::kSame, Padding::kValid}) {
        figures.push_back({{1, 6, 6, channels, 8, 3, 3, stride, stride, padding}});
      }
    }
    // 4x4 stride 2 SAME: top padding 1, not a multiple of the stride.
    figures.push_back({{1, 6, 6, channels, 8, 4, 4, 2, 2, Padding::kSame}});
  }
  for (Figure& f : figures) {
    const OneOp m = int8_layer(f.layer, rng);
    const std::vector<uint8_t> input = random_bytes(rng, test::bytes_of_tensor(m, m.input));
    f.reference = checked_safe_overlap(m, KernelFamily::kTflmReference, input, f.layer.describe());
    f.portable = checked_safe_overlap(m, KernelFamily::kCmsisNn, input, f.layer.describe());
    f.dsp = checked_safe_overlap(m, KernelFamily::kCmsisNnDsp, input, f.layer.describe());
    std::printf(
        "[ O_s      ] %-32s in %4lld out %4lld bytes: reference %4lld, cmsis-nn %4lld, cmsis-nn-dsp %4lld (%s)\n",
        f.layer.describe().c_str(), static_cast<long long>(test::bytes_of_tensor(m, m.input)),
        static_cast<long long>(test::bytes_of_tensor(m, m.output)), static_cast<long long>(f.reference),
        static_cast<long long>(f.portable), static_cast<long long>(f.dsp),
        f.layer.channels > 16 ? "reverse conv" : "rolling rows");
    // The DSP reads differ only within one input row (rolling rows), all
    // before that row's stores, or not at all (reverse conv).
    EXPECT_EQ(f.portable, f.dsp) << f.layer.describe();
  }
}

TEST(CmsisNnTransposeConv, SafeOverlapHoldsOnRandomLayers) {
  std::mt19937 rng(2026);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  std::map<std::string, int> paths;
  for (int i = 0; i < 300; ++i) {
    Layer l;
    l.batches = pick(1, 2);
    l.height = pick(1, 5);
    l.width = pick(1, 6);
    // Half the layers above the reverse-conv threshold.
    l.channels = i % 2 == 0 ? pick(1, 16) : pick(17, 24);
    l.out_channels = pick(1, 5);
    l.filter_height = pick(1, 4);
    l.filter_width = pick(1, 4);
    l.stride_height = pick(1, 3);
    l.stride_width = pick(1, 3);
    l.padding = pick(0, 1) == 0 ? Padding::kSame : Padding::kValid;
    const OneOp m = int8_layer(l, rng, /*with_bias=*/pick(0, 3) != 0);
    const std::vector<uint8_t> input = random_bytes(rng, test::bytes_of_tensor(m, m.input));
    const std::vector<uint8_t> reference = output_of(m, input);
    for (KernelFamily family : kCmsisFamilies) {
      const std::string path = implementation_of(m, family);
      EXPECT_EQ(path, expected_implementation(l, family)) << l.describe();
      ++paths[path];
      EXPECT_EQ(output_of(m, input, family), reference) << l.describe() << " " << path;
      checked_safe_overlap(m, family, input, l.describe());
    }
  }
  for (const auto& [path, count] : paths) std::printf("[ paths    ] %4d %s\n", count, path.c_str());
  EXPECT_EQ(paths.size(), 4u) << "both paths of both families";
  for (const auto& [path, count] : paths) EXPECT_GE(count, 50) << path;
}

// ---------------------------------------------------------------- fallbacks and errors

TEST(CmsisNnTransposeConv, FloatAndInt16RunTheReferenceKernel) {
  const Layer l{1, 3, 3, 2, 2, 3, 3, 2, 2, Padding::kSame};
  const OneOp float_op = transpose_conv(l, DataType::kFloat32, DataType::kFloat32,
                                        bytes_of(std::vector<float>(36, 0.25f)), {}, DataType::kFloat32, {}, {}, {});
  // 16x8: the glue calls reference_integer_ops::TransposeConv.
  Quantization filter_quant = per_tensor(0.01f, 0);
  const OneOp int16_op = transpose_conv(l, DataType::kInt16, DataType::kInt8, bytes_of(std::vector<int8_t>(36, 3)),
                                        filter_quant, DataType::kInt64, bytes_of(std::vector<int64_t>{5, -5}),
                                        per_tensor(0.5f, 0), per_tensor(0.25f, 0));
  for (const OneOp* m : {&float_op, &int16_op}) {
    for (KernelFamily family : kCmsisFamilies) {
      EXPECT_EQ(implementation_of(*m, family), "") << kernel_family_name(family);
      EXPECT_TRUE(scratch_of(*m, family).empty());
      EXPECT_EQ(addresses(*m, family).safe_overlap(), addresses(*m).safe_overlap());
    }
    // And the analysis does not hold them as unmirrored CMSIS-NN functions.
    EXPECT_FALSE(unmirrored_cmsis_nn_function(m->graph.main(), m->graph.main().ops[0]).has_value());
  }
  std::mt19937 rng(1);
  const OneOp int8_op = int8_layer(l, rng);
  EXPECT_FALSE(unmirrored_cmsis_nn_function(int8_op.graph.main(), int8_op.graph.main().ops[0]).has_value());
}

std::string error_under(const Graph& graph, KernelFamily family) {
  return test::error_of([&] {
    Schedule schedule = default_schedule(graph);
    schedule.kernels = family;
    const Interpreter interpreter(graph, unshared_placement(graph.main()), schedule);
    interpreter.prepared(0);
  });
}

TEST(CmsisNnTransposeConv, BadOperandsGiveTheReferenceMessages) {
  std::mt19937 rng(9);
  const Layer l{1, 3, 3, 4, 2, 3, 3, 1, 1, Padding::kSame};
  // Three operands only: no input tensor.
  {
    GraphBuilder b("cmsis_nn_transpose_conv_test");
    const int32_t input = b.add_tensor("input", DataType::kInt8, {1, 3, 3, 4}, per_tensor(0.5f, 0));
    const int32_t output = b.add_tensor("output", DataType::kInt8, {1, 3, 3, 2}, per_tensor(0.5f, 0));
    b.add_op(OpKind::kTransposeConv, {input}, {output}, l.params());
    b.set_inputs({input});
    b.set_outputs({output});
    const Graph graph = b.finish();
    for (KernelFamily family : kCmsisFamilies) {
      EXPECT_EQ(error_under(graph, family),
                "op 0 (TRANSPOSE_CONV): expected 3 or 4 inputs (output_shape, filter, input[, bias]), got 1");
    }
  }
  // A float filter with int8 input (hybrid), and an output of 5 channels
  // for a filter of 2.
  const OneOp hybrid = transpose_conv(l, DataType::kInt8, DataType::kFloat32, bytes_of(std::vector<float>(72, 0.5f)),
                                      {}, DataType::kInt32, {}, per_tensor(0.5f, 0), per_tensor(0.5f, 0));
  const OneOp deeper = int8_layer(l, rng, true, {1, 3, 3, 5});
  for (KernelFamily family : kCmsisFamilies) {
    EXPECT_NE(error_under(hybrid.graph, family)
                  .find("op 0 (TRANSPOSE_CONV): filter type FLOAT32 with INT8 input is not supported; it must be INT8"),
              std::string::npos)
        << error_under(hybrid.graph, family);
    EXPECT_NE(error_under(deeper.graph, family).find("has depth 5 but filter"), std::string::npos)
        << error_under(deeper.graph, family);
  }
}

// An output_shape larger than input, filter and stride give: the reference
// kernel fills the rest with the bias, arm_transpose_conv_s8 would leave it
// unwritten, so the cmsis families refuse it.
OneOp oversized_output(std::mt19937& rng) {
  const Layer l{1, 2, 2, 4, 2, 2, 2, 2, 2, Padding::kValid};
  return int8_layer(l, rng, true, {1, 6, 4, 2});
}

TEST(CmsisNnTransposeConv, RefusesAnOutputArmTransposeConvWouldLeavePartlyUnwritten) {
  std::mt19937 rng(13);
  const OneOp m = oversized_output(rng);
  EXPECT_EQ(implementation_of(m, KernelFamily::kTflmReference), "");
  for (KernelFamily family : kCmsisFamilies) {
    EXPECT_EQ(error_under(m.graph, family),
              "op 0 (TRANSPOSE_CONV): output 6x4 is larger than the 4x4 arm_transpose_conv_s8 computes for this "
              "input, filter and stride");
  }
}

TEST(CmsisNnTransposeConvCli, RefusalIsOneLineAndExitTwo) {
  std::mt19937 rng(13);
  const std::vector<uint8_t> bytes = write_tflite(oversized_output(rng).graph);
  const std::string file =
      (std::filesystem::temp_directory_path() / ("dmo_cmsis_tconv_" + std::to_string(::getpid()) + ".tflite")).string();
  std::ofstream(file, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  EXPECT_EQ(test::run_dmo({"verify", file}).exit_status, 0);
  const test::CommandResult r = test::run_dmo({"verify", file, "--kernels", "cmsis-nn"});
  EXPECT_EQ(r.exit_status, 2) << r.out << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("op 0 (TRANSPOSE_CONV): output 6x4 is larger than the 4x4 arm_transpose_conv_s8 computes"),
            std::string::npos)
      << r.err;
  std::filesystem::remove(file);
}

}  // namespace
}  // namespace dmo

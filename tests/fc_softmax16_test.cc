// INT16 FULLY_CONNECTED (int8 weights, int64 bias) and INT16 -> INT16
// SOFTMAX: TFLM's reference kernels and their cmsis-nn / cmsis-nn-dsp
// mirrors (arm_fully_connected_s16, arm_softmax_s16). Values against
// computations written here, independently of the kernels; which CMSIS-NN
// function each family selects and the scratch its glue requests; the safe
// overlap of each family's access order (no clobber at O_s, a clobber one
// element beyond) on chosen and random shapes; and bad operands.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <string>
#include <vector>

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
using test::values_from;

constexpr KernelFamily kReference = KernelFamily::kTflmReference;
constexpr KernelFamily kPortable = KernelFamily::kCmsisNn;
constexpr KernelFamily kDsp = KernelFamily::kCmsisNnDsp;
constexpr std::array<KernelFamily, 3> kAllFamilies = {kReference, kPortable, kDsp};

using test::random_values;

Graph finish_one_op(GraphBuilder& b, OpKind kind, std::vector<int32_t> inputs, int32_t input, int32_t output,
                    OpParams params) {
  b.add_op(kind, std::move(inputs), {output}, std::move(params));
  b.set_inputs({input});
  b.set_outputs({output});
  return b.finish();
}

// ------------------------------------------------------------- builders

struct Fc16Spec {
  int32_t batches = 1, depth = 4, units = 3;
  float input_scale = 0.001f, weights_scale = 0.01f, output_scale = 0.002f;
  Activation activation = Activation::kNone;
  bool keep_num_dims = false;
  bool with_bias = true;
};

// FULLY_CONNECTED: input INT16 [batches, depth] (or [1, batches, depth]),
// weights INT8 [units, depth], bias INT64 [units], output INT16.
OneOp fc16(const Fc16Spec& s, const std::vector<int8_t>& weights, const std::vector<int64_t>& bias) {
  GraphBuilder b("int16 fully connected");
  OneOp m;
  const Shape in_shape = s.keep_num_dims ? Shape{1, s.batches, s.depth} : Shape{s.batches, s.depth};
  const Shape out_shape = s.keep_num_dims ? Shape{1, s.batches, s.units} : Shape{s.batches, s.units};
  m.input = b.add_tensor("input", DataType::kInt16, in_shape, per_tensor(s.input_scale, 0));
  std::vector<int32_t> inputs = {m.input, b.add_constant_values<int8_t>("weights", DataType::kInt8, {s.units, s.depth},
                                                                        weights, per_tensor(s.weights_scale, 0))};
  if (s.with_bias) inputs.push_back(b.add_constant_values<int64_t>("bias", DataType::kInt64, {s.units}, bias));
  m.output = b.add_tensor("output", DataType::kInt16, out_shape, per_tensor(s.output_scale, 0));
  FullyConnectedParams p;
  p.activation = s.activation;
  p.keep_num_dims = s.keep_num_dims;
  m.graph = finish_one_op(b, OpKind::kFullyConnected, inputs, m.input, m.output, p);
  return m;
}

OneOp random_fc16(const Fc16Spec& s, std::mt19937& rng) {
  return fc16(s, random_values<int8_t>(rng, int64_t{s.units} * s.depth, -127, 127),
              random_values<int64_t>(rng, s.units, -200000, 200000));
}

// SOFTMAX INT16 [rows, depth] -> INT16 with TFLite's output quantization.
OneOp softmax16(int32_t rows, int32_t depth, float input_scale = 0.0005f, float beta = 1.0f) {
  GraphBuilder b("int16 softmax");
  OneOp m;
  m.input = b.add_tensor("input", DataType::kInt16, {rows, depth}, per_tensor(input_scale, 0));
  m.output = b.add_tensor("output", DataType::kInt16, {rows, depth}, per_tensor(1.0f / 32768, 0));
  m.graph = finish_one_op(b, OpKind::kSoftmax, {m.input}, m.input, m.output, SoftmaxParams{beta});
  return m;
}

// ------------------------------------------------------------- helpers

std::vector<uint8_t> run_family(const OneOp& m, KernelFamily family, const std::vector<uint8_t>& input) {
  Interpreter interpreter(m.graph, unshared_placement(m.graph.main()), test::schedule_for(m, family));
  interpreter.set_inputs(input);
  interpreter.run();
  return interpreter.tensor_contents(m.output);
}

std::vector<int16_t> run16(const OneOp& m, KernelFamily family, const std::vector<int16_t>& input) {
  return values_from<int16_t>(run_family(m, family, bytes_of(input)));
}

const PreparedKernel& prepared_of(const Interpreter& interpreter) { return interpreter.prepared(0); }

std::string implementation_of(const OneOp& m, KernelFamily family) {
  const Interpreter interpreter(m.graph, unshared_placement(m.graph.main()), test::schedule_for(m, family));
  return prepared_of(interpreter).implementation;
}

std::vector<KernelScratch> scratch_of(const OneOp& m, KernelFamily family) {
  const Interpreter interpreter(m.graph, unshared_placement(m.graph.main()), test::schedule_for(m, family));
  return prepared_of(interpreter).scratch;
}

std::string run_error(const Graph& graph, KernelFamily family = kReference) {
  return test::error_of([&] {
    Schedule schedule = default_schedule(graph);
    schedule.kernels = family;
    Interpreter interpreter(graph, unshared_placement(graph.main()), std::move(schedule));
    interpreter.set_inputs(std::vector<uint8_t>(static_cast<size_t>(interpreter.input_bytes())));
    interpreter.run();
  });
}

#define EXPECT_RUN_ERROR(graph, family, text)                                    \
  do {                                                                           \
    const std::string message = run_error(graph, family);                        \
    EXPECT_NE(message.find(text), std::string::npos) << "message: " << message; \
  } while (0)

std::vector<int16_t> random_input(std::mt19937& rng, const OneOp& m, int lo = -32768, int hi = 32767) {
  return random_values<int16_t>(rng, test::bytes_of_tensor(m, m.input) / 2, lo, hi);
}

// The two facts of an algorithmic O_s for `family`: no clobber at O_s (and
// the reference kernel's output there), a clobber one int16 element beyond
// when that still fits in both tensors. Returns O_s.
int64_t expect_tight_overlap(const OneOp& m, KernelFamily family, const std::vector<int16_t>& input,
                             const std::string& what) {
  const int64_t os = addresses(m, family).safe_overlap();
  EXPECT_FALSE(clobbers_at_overlap(m, os, bytes_of(input), family)) << what << " at O_s " << os;
  const int64_t beyond = os + 2;
  if (beyond <= std::min(test::bytes_of_tensor(m, m.input), test::bytes_of_tensor(m, m.output))) {
    EXPECT_TRUE(clobbers_at_overlap(m, beyond, bytes_of(input), family)) << what << " at " << beyond << " (O_s " << os
                                                                         << ")";
  }
  return os;
}

// ------------------------------------------- FULLY_CONNECTED: the arithmetic

// TFLite's requantization of a 64-bit sum, from its description: the real
// multiplier as a Q31 mantissa and exponent (ties of the mantissa rounded
// away from zero), the mantissa rounded to 16 bits, then x * m16 / 2^(15 -
// exponent) rounded half up, all in exact integers.
int32_t tflite_requantize64(int64_t x, double real) {
  int exponent = 0;
  const double fraction = std::frexp(real, &exponent);
  int64_t q31 = std::llround(fraction * 2147483648.0);
  if (q31 == (int64_t{1} << 31)) {
    q31 /= 2;
    ++exponent;
  }
  const int64_t q15 = q31 < 0x7FFF0000 ? (q31 + 32768) / 65536 : 0x7FFF;
  const int total_shift = 15 - exponent;
  const __int128 scaled = static_cast<__int128>(x) * q15 + (static_cast<__int128>(1) << (total_shift - 1));
  const __int128 floor = scaled >= 0 ? scaled >> total_shift : -((-scaled + ((static_cast<__int128>(1) << total_shift) - 1)) >> total_shift);
  return static_cast<int32_t>(floor);
}

// The whole op from the definition: sum of weight * input plus bias in 64
// bits, requantized, clamped to [lo, hi].
std::vector<int16_t> expected_fc16(const Fc16Spec& s, const std::vector<int8_t>& weights,
                                   const std::vector<int64_t>& bias, const std::vector<int16_t>& input, int32_t lo = -32768,
                                   int32_t hi = 32767) {
  const double real = static_cast<double>(s.input_scale * s.weights_scale) / static_cast<double>(s.output_scale);
  std::vector<int16_t> out;
  for (int32_t b = 0; b < s.batches; ++b) {
    for (int32_t u = 0; u < s.units; ++u) {
      int64_t acc = s.with_bias ? bias[static_cast<size_t>(u)] : 0;
      for (int32_t d = 0; d < s.depth; ++d) {
        acc += int64_t{weights[static_cast<size_t>(u * s.depth + d)]} * input[static_cast<size_t>(b * s.depth + d)];
      }
      out.push_back(static_cast<int16_t>(std::clamp(tflite_requantize64(acc, real), lo, hi)));
    }
  }
  return out;
}

TEST(Int16FullyConnected, RoundsHalfUpAndSaturatesAsTflite) {
  // Scales 0.5 * 1 / 1: the multiplier is exactly 1/2 (mantissa 2^30,
  // rounded to 16384 of 2^15), so out = floor(acc / 2 + 1/2): ties go up,
  // not away from zero. The bias sets each unit's sum.
  Fc16Spec s;
  s.batches = 1;
  s.depth = 2;
  s.units = 6;
  s.input_scale = 0.5f;
  s.weights_scale = 1.0f;
  s.output_scale = 1.0f;
  const std::vector<int16_t> input = {300, -7};
  const std::vector<int8_t> weights = {2, 3, -1, 5, 0, 0, 7, 7, -128, 127, 1, -1};
  const std::vector<int64_t> targets = {3, -3, -1, 1, 100000, -100000};
  std::vector<int64_t> bias;
  for (int32_t u = 0; u < s.units; ++u) {
    bias.push_back(targets[static_cast<size_t>(u)] - (int64_t{weights[static_cast<size_t>(2 * u)]} * input[0] +
                                                      int64_t{weights[static_cast<size_t>(2 * u + 1)]} * input[1]));
  }
  const OneOp m = fc16(s, weights, bias);
  const std::vector<int16_t> expected = {2, -1, 0, 1, 32767, -32768};
  EXPECT_EQ(expected_fc16(s, weights, bias, input), expected);
  for (KernelFamily family : kAllFamilies) EXPECT_EQ(run16(m, family, input), expected) << kernel_family_name(family);

  // RELU clamps below at 0; RELU_N1_TO_1 at -2 and 2 (output scale 0.5).
  s.activation = Activation::kRelu;
  const OneOp relu = fc16(s, weights, bias);
  for (KernelFamily family : kAllFamilies) {
    EXPECT_EQ(run16(relu, family, input), (std::vector<int16_t>{2, 0, 0, 1, 32767, 0})) << kernel_family_name(family);
  }
  s.activation = Activation::kReluN1To1;
  s.output_scale = 0.5f;
  s.input_scale = 0.25f;
  const OneOp n1to1 = fc16(s, weights, bias);
  for (KernelFamily family : kAllFamilies) {
    EXPECT_EQ(run16(n1to1, family, input), (std::vector<int16_t>{2, -1, 0, 1, 2, -2})) << kernel_family_name(family);
  }
}

TEST(Int16FullyConnected, MatchesTheDefinitionOnRandomOps) {
  std::mt19937 rng(16);
  std::uniform_int_distribution<int> pick(1, 40);
  for (int trial = 0; trial < 60; ++trial) {
    Fc16Spec s;
    s.batches = pick(rng) % 4 + 1;
    s.depth = trial % 10 == 0 ? 520 + pick(rng) : pick(rng);
    s.units = pick(rng) % 9 + 1;
    s.input_scale = 0.0001f * static_cast<float>(pick(rng));
    s.weights_scale = 0.001f * static_cast<float>(pick(rng));
    s.output_scale = 0.0003f * static_cast<float>(pick(rng));
    s.with_bias = trial % 3 != 0;
    s.keep_num_dims = trial % 4 == 1;
    const auto weights = random_values<int8_t>(rng, int64_t{s.units} * s.depth, -128, 127);
    const auto bias = random_values<int64_t>(rng, s.units, -3000000, 3000000);
    const OneOp m = fc16(s, weights, bias);
    const auto input = random_input(rng, m);
    const auto expected = expected_fc16(s, weights, bias, input);
    for (KernelFamily family : kAllFamilies) {
      EXPECT_EQ(run16(m, family, input), expected) << kernel_family_name(family) << " trial " << trial;
    }
  }
}

TEST(Int16FullyConnected, DspPathSumsItsFirst512ColumnsIn32Bits) {
  // 512 products of (-32768) * (-128) = 2^22 sum to 2^31: TFLite's 64-bit
  // sum gives 2^31 * 2^-20 = 2048; the DSP path's SMLAD sum wraps to -2^31,
  // so -2048. The portable path sums in 64 bits like the reference.
  Fc16Spec s;
  s.depth = 512;
  s.units = 1;
  s.input_scale = 1.0f / 1024;
  s.weights_scale = 1.0f / 1024;
  s.output_scale = 1.0f;
  s.with_bias = false;
  const OneOp m = fc16(s, std::vector<int8_t>(512, -128), {});
  const std::vector<int16_t> input(512, -32768);
  EXPECT_EQ(run16(m, kReference, input), std::vector<int16_t>{2048});
  EXPECT_EQ(run16(m, kPortable, input), std::vector<int16_t>{2048});
  EXPECT_EQ(run16(m, kDsp, input), std::vector<int16_t>{-2048});
}

// ------------------------------------------- FULLY_CONNECTED: selection

TEST(Int16FullyConnected, SelectsArmFullyConnectedS16WithoutScratch) {
  std::mt19937 rng(3);
  Fc16Spec s;
  s.batches = 2;
  s.depth = 12;
  s.units = 5;
  for (bool keep : {false, true}) {
    s.keep_num_dims = keep;  // an output of rank 3 does not take INT8's 1x1 conv path
    const OneOp m = random_fc16(s, rng);
    EXPECT_EQ(implementation_of(m, kPortable), "arm_fully_connected_s16 (portable C)");
    EXPECT_EQ(implementation_of(m, kDsp), "arm_fully_connected_s16 (DSP)");
    EXPECT_EQ(implementation_of(m, kReference), "");
    // arm_fully_connected_s16_get_buffer_size (and _dsp) is 0: no request.
    EXPECT_TRUE(scratch_of(m, kPortable).empty());
    EXPECT_TRUE(scratch_of(m, kDsp).empty());
  }
}

TEST(Int16FullyConnected, FloatRunsTheReferenceKernelUnderCmsisFamilies) {
  GraphBuilder b("float fully connected");
  const int32_t in = b.add_tensor("input", DataType::kFloat32, {1, 4});
  const int32_t w = b.add_constant_values<float>("weights", DataType::kFloat32, {2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  const int32_t out = b.add_tensor("output", DataType::kFloat32, {1, 2});
  OneOp m{finish_one_op(b, OpKind::kFullyConnected, {in, w}, in, out, FullyConnectedParams{}), in, out};
  for (KernelFamily family : {kPortable, kDsp}) {
    EXPECT_EQ(implementation_of(m, family), "");
    EXPECT_EQ(values_from<float>(run_family(m, family, bytes_of(std::vector<float>{1, 0, 0, -1}))),
              (std::vector<float>{-3, -3}));
  }
}

// ------------------------------------------- FULLY_CONNECTED: O_s

TEST(Int16FullyConnected, SafeOverlapPerFamily) {
  // Output [batches, units] over input [batches, depth]; each family's
  // O_s is tight (clean there, clobbered one element beyond).
  std::mt19937 rng(5);
  struct Case {
    int32_t batches, depth, units;
  };
  for (const Case c : {Case{1, 8, 4}, Case{3, 10, 6}, Case{4, 6, 7}, Case{2, 600, 3}, Case{5, 3, 2}}) {
    Fc16Spec s;
    s.batches = c.batches;
    s.depth = c.depth;
    s.units = c.units;
    const OneOp m = random_fc16(s, rng);
    const auto input = random_input(rng, m);
    for (KernelFamily family : kAllFamilies) {
      const int64_t os = expect_tight_overlap(m, family, input, fmt::format("{} {}x{}x{}", kernel_family_name(family),
                                                                            c.batches, c.depth, c.units));
      // The reference and the portable path read each row once per unit.
      if (family == kPortable) {
        EXPECT_EQ(os, addresses(m, kReference).safe_overlap());
      }
    }
  }
}

TEST(Int16FullyConnected, DspStoresTwoUnitsAfterEachReadOfTheRow) {
  // One batch row of 8 elements, units outputs. The reference and portable
  // C read the row for each unit and store that unit's output after: every
  // store but the last is followed by reads of the whole row, so the output
  // may only cover the input by its last element (2 bytes). The DSP path
  // stores units in pairs after each read of the row: with 4 units the last
  // pair is followed by no read (4 bytes); with 5 the lone last unit reads
  // the row after the second pair (2 bytes).
  std::mt19937 rng(9);
  Fc16Spec s;
  s.depth = 8;
  s.units = 4;
  const OneOp four = random_fc16(s, rng);
  EXPECT_EQ(addresses(four, kReference).safe_overlap(), 2);
  EXPECT_EQ(addresses(four, kPortable).safe_overlap(), 2);
  EXPECT_EQ(addresses(four, kDsp).safe_overlap(), 4);
  s.units = 5;
  const OneOp five = random_fc16(s, rng);
  for (KernelFamily family : kAllFamilies) EXPECT_EQ(addresses(five, family).safe_overlap(), 2);
  // Storing in pairs never allows less than storing one by one.
  for (int32_t units = 1; units <= 7; ++units) {
    s.batches = 3;
    s.depth = 5;
    s.units = units;
    const OneOp m = random_fc16(s, rng);
    EXPECT_GE(addresses(m, kDsp).safe_overlap(), addresses(m, kPortable).safe_overlap()) << units << " units";
  }
}

TEST(Int16FullyConnected, SafeOverlapPropertyOnRandomShapes) {
  std::mt19937 rng(1616);
  std::uniform_int_distribution<int> small(1, 9);
  for (int trial = 0; trial < 240; ++trial) {
    Fc16Spec s;
    s.batches = small(rng);
    s.depth = trial % 12 == 0 ? 512 + small(rng) * 3 : small(rng) + (trial % 2 == 0 ? 0 : 4 * small(rng));
    s.units = small(rng);
    s.keep_num_dims = trial % 5 == 0;
    s.with_bias = trial % 7 != 0;
    s.activation = trial % 6 == 1 ? Activation::kRelu : Activation::kNone;
    const OneOp m = random_fc16(s, rng);
    const auto input = random_input(rng, m);
    const KernelFamily family = kAllFamilies[static_cast<size_t>(trial) % kAllFamilies.size()];
    expect_tight_overlap(m, family, input,
                         fmt::format("trial {} {} {}x{}x{}", trial, kernel_family_name(family), s.batches, s.depth,
                                     s.units));
  }
}

// ------------------------------------------- FULLY_CONNECTED: bad operands

TEST(Int16FullyConnected, RejectsOperandsTflmCannotRun) {
  auto build = [](DataType weights_type, DataType bias_type, DataType output_type, Quantization input_q,
                   Quantization weights_q, bool extra_input = false) {
    GraphBuilder b("bad int16 fully connected");
    const int32_t in = b.add_tensor("input", DataType::kInt16, {2, 4}, input_q);
    const int32_t w = b.add_constant("weights", weights_type, {3, 4},
                                     std::vector<uint8_t>(static_cast<size_t>(12 * *element_size(weights_type))),
                                     weights_q);
    const int32_t bias = b.add_constant("bias", bias_type, {3},
                                        std::vector<uint8_t>(static_cast<size_t>(3 * *element_size(bias_type))));
    const int32_t out = b.add_tensor("output", output_type, {2, 3}, per_tensor(0.01f, 0));
    std::vector<int32_t> inputs = {in, w, bias};
    if (extra_input) inputs.push_back(in);
    return finish_one_op(b, OpKind::kFullyConnected, inputs, in, out, FullyConnectedParams{});
  };
  const Quantization q = per_tensor(0.001f, 0);
  for (KernelFamily family : kAllFamilies) {
    EXPECT_RUN_ERROR(build(DataType::kInt16, DataType::kInt64, DataType::kInt16, q, q), family,
                     "op 0 (FULLY_CONNECTED): weights type INT16 with INT16 input is not supported; the weights must "
                     "be INT8");
    EXPECT_RUN_ERROR(build(DataType::kInt8, DataType::kInt32, DataType::kInt16, q, q), family,
                     "op 0 (FULLY_CONNECTED): bias type INT32 with INT16 input is not supported; the bias must be "
                     "INT64");
    EXPECT_RUN_ERROR(build(DataType::kInt8, DataType::kInt64, DataType::kInt8, q, q), family,
                     "op 0 (FULLY_CONNECTED): output type INT8 with INT16 input is not supported; the output must be "
                     "INT16");
    EXPECT_RUN_ERROR(build(DataType::kInt8, DataType::kInt64, DataType::kInt16, per_tensor(0.001f, 5), q), family,
                     "op 0 (FULLY_CONNECTED): INT16 input and output and INT8 weights must have zero point 0, have "
                     "5, 0 and 0");
    EXPECT_RUN_ERROR(build(DataType::kInt8, DataType::kInt64, DataType::kInt16, q,
                           Quantization{{0.01f, 0.02f, 0.03f}, {0, 0, 0}, 0}),
                     family, "op 0 (FULLY_CONNECTED): INT8 filter must be quantized per tensor");
    EXPECT_RUN_ERROR(build(DataType::kInt8, DataType::kInt64, DataType::kInt16, q, q, true), family,
                     "op 0 (FULLY_CONNECTED): expected 2 or 3 inputs (input, weights, bias), got 4");
    EXPECT_RUN_ERROR(build(DataType::kInt8, DataType::kInt64, DataType::kInt16, per_tensor(10000.0f, 0), q), family,
                     "op 0 (FULLY_CONNECTED): effective output scale is 128 or more, beyond the INT16 requantization");
  }
  // An input type no FULLY_CONNECTED kernel runs names the supported ones.
  GraphBuilder b("int32 fully connected");
  const int32_t in = b.add_tensor("input", DataType::kInt32, {1, 2});
  const int32_t w = b.add_constant_values<int32_t>("weights", DataType::kInt32, {1, 2}, {1, 1});
  const int32_t out = b.add_tensor("output", DataType::kInt32, {1, 1});
  const Graph int32_fc = finish_one_op(b, OpKind::kFullyConnected, {in, w}, in, out, FullyConnectedParams{});
  EXPECT_RUN_ERROR(int32_fc, kPortable,
                   "op 0 (FULLY_CONNECTED): input type INT32 is not supported; supported: FLOAT32, INT8, INT16, UINT8");
}

TEST(Int16FullyConnected, CliNamesABadBiasInOneLineAndExitsTwo) {
  GraphBuilder b("int16 fully connected, int32 bias");
  const int32_t in = b.add_tensor("input", DataType::kInt16, {1, 4}, per_tensor(0.001f, 0));
  const int32_t w = b.add_constant_values<int8_t>("weights", DataType::kInt8, {2, 4}, {1, 2, 3, 4, 5, 6, 7, 8},
                                                  per_tensor(0.01f, 0));
  const int32_t bias = b.add_constant_values<int32_t>("bias", DataType::kInt32, {2}, {1, 2});
  const int32_t out = b.add_tensor("output", DataType::kInt16, {1, 2}, per_tensor(0.01f, 0));
  const std::vector<uint8_t> bytes =
      write_tflite(finish_one_op(b, OpKind::kFullyConnected, {in, w, bias}, in, out, FullyConnectedParams{}));
  const std::string file =
      (std::filesystem::temp_directory_path() / fmt::format("dmo_fc16_{}_bias.tflite", ::getpid())).string();
  std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                              static_cast<std::streamsize>(bytes.size()));
  const test::CommandResult r = test::run_dmo({"run", file});
  EXPECT_EQ(r.exit_status, 2) << r.out << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(file + ": op 0 (FULLY_CONNECTED): bias type INT32 with INT16 input is not supported"),
            std::string::npos)
      << r.err;
  std::filesystem::remove(file);
}

// ------------------------------------------- SOFTMAX: a second derivation

// TFLite's INT16 softmax rebuilt here from its description, written apart
// from the kernel: a 513-entry table sampled at 512 even steps over the
// input range (each entry lowered by half the rounded midpoint error of
// linear interpolation), looked up with 9 index and 7 interpolation bits;
// exp over [-10, 0] and 1 / (1 + x) over [0, 1], outputs in [-1, 1].
struct SecondSoftmax {
  std::array<int32_t, 513> exp_table{}, reciprocal_table{};

  static std::array<int32_t, 513> table(float lo_scale, int32_t lo_zero, float (*f)(float)) {
    // input_scale * (q - zero) at q = -32768 and 32767, in float.
    const float x0 = lo_scale * static_cast<float>(-32768 - lo_zero);
    const float x1 = lo_scale * static_cast<float>(32767 - lo_zero);
    const float out_scale = 2.0f / 65535.0f;
    const float to_int = 65536.0f / (out_scale * 32767.0f - out_scale * -32768.0f);
    const float h = (x1 - x0) / 512.0f;
    std::array<int32_t, 513> t{};
    auto clamp16 = [](float v) { return static_cast<int32_t>(std::clamp(v, -32768.0f, 32767.0f)); };
    for (int i = 0; i < 512; ++i) {
      const float lo = x0 + static_cast<float>(i) * h;
      const float at = std::round(f(lo) * to_int);
      const float line_mid = std::round((f(x0 + static_cast<float>(i + 1) * h) * to_int + at) / 2);
      const float true_mid = std::round(f(lo + h / 2) * to_int);
      t[static_cast<size_t>(i)] = clamp16(at - std::round((line_mid - true_mid) / 2));
    }
    t[512] = clamp16(std::round(f(x1) * to_int));
    return t;
  }

  SecondSoftmax()
      : exp_table(table(10.0f / 65535.0f, 32767, [](float x) { return std::exp(x); })),
        reciprocal_table(table(1.0f / 65535.0f, -32768, [](float x) { return 1.0f / (1.0f + x); })) {}

  static int32_t lookup(int32_t v, const std::array<int32_t, 513>& t) {
    const int32_t hi = (v + 32768) / 128;  // v >> 7 plus 256
    const int32_t frac = (v + 32768) % 128;
    const int32_t slope = t[static_cast<size_t>(hi) + 1] - t[static_cast<size_t>(hi)];
    return t[static_cast<size_t>(hi)] + static_cast<int32_t>(std::floor((slope * frac + 64) / 128.0));
  }

  // Q31 multiplier of input_scale * beta * 65535 / 10 applied to d <= 0
  // with round-half-away doubling high multiply and rounding shift.
  static int32_t scale_difference(int32_t d, double real) {
    int e = 0;
    const double fraction = std::frexp(real, &e);
    auto m = static_cast<int64_t>(std::llround(fraction * 2147483648.0));
    if (m == (int64_t{1} << 31)) {
      m /= 2;
      ++e;
    }
    const int64_t x = int64_t{d} * (e > 0 ? (int64_t{1} << e) : 1);
    const int64_t product = x * m;
    const int64_t high = (product + (product >= 0 ? (int64_t{1} << 30) : 1 - (int64_t{1} << 30))) / (int64_t{1} << 31);
    if (e >= 0) return static_cast<int32_t>(high);
    // Rounding divide by 2^-e, ties away from zero.
    const double q = static_cast<double>(high) / std::ldexp(1.0, -e);
    return static_cast<int32_t>(q >= 0 ? std::floor(q + 0.5) : std::ceil(q - 0.5));
  }

  // `cmsis`: arm_softmax_s16's arithmetic, which normalizes the sum in 32
  // bits and truncates the recentred sum and each result to int16 instead
  // of saturating (its rounding, a shift by one less then (v + 1) >> 1, is
  // the same as TFLite's).
  std::vector<int16_t> run(const std::vector<int16_t>& x, int32_t depth, double real, bool cmsis = false) const {
    std::vector<int16_t> y(x.size());
    for (size_t r = 0; r < x.size() / static_cast<size_t>(depth); ++r) {
      const auto first = x.begin() + static_cast<std::ptrdiff_t>(r * static_cast<size_t>(depth));
      const int32_t max = *std::max_element(first, first + depth);
      std::vector<int64_t> e;
      for (int32_t c = 0; c < depth; ++c) {
        const int32_t s = std::clamp(scale_difference(first[c] - max, real) + 32767, -32768, 32767);
        e.push_back(lookup(s, exp_table));
      }
      const int64_t sum = std::accumulate(e.begin(), e.end(), int64_t{0});
      int bits = 0;  // leading zeros of the 32-bit sum
      while (bits < 32 && (sum & (int64_t{1} << (31 - bits))) == 0) ++bits;
      int64_t normalized = ((sum << (bits - 1)) + 8192) >> 14;  // in [2^16, 2^17]
      if (cmsis && (sum << (bits - 1)) + 8192 >= (int64_t{1} << 31)) normalized -= int64_t{1} << 18;  // 32-bit wrap
      const int32_t recentred = cmsis ? static_cast<int16_t>(normalized - 98304)
                                      : static_cast<int32_t>(std::clamp<int64_t>(normalized - 98304, -32768, 32767));
      const int64_t reciprocal = lookup(recentred, reciprocal_table);
      const int shift = 31 - bits;
      for (int32_t c = 0; c < depth; ++c) {
        const int64_t v = (e[static_cast<size_t>(c)] * reciprocal + (int64_t{1} << (shift - 1))) >> shift;
        y[r * static_cast<size_t>(depth) + static_cast<size_t>(c)] =
            static_cast<int16_t>(cmsis ? v : std::clamp<int64_t>(v, 0, 32767));
      }
    }
    return y;
  }
};

double softmax_real_multiplier(float input_scale, float beta) {
  return static_cast<double>(input_scale) * static_cast<double>(beta) / (10.0 / 65535.0);
}

TEST(Int16Softmax, TablesHaveTheirHandDerivedEnds) {
  const SecondSoftmax second;
  // exp(0) = 1 -> 32768, clamped to 32767. exp(-10) * 32768 = 1.49 -> 1,
  // but the line to the next sample (1.52) meets the midpoint at
  // round((1.52 + 1) / 2) = 1 where exp(-9.99) * 32768 = 1.50 rounds to 2:
  // the entry is lowered by round(-1 / 2) = -1, so 2.
  EXPECT_EQ(second.exp_table[512], 32767);
  EXPECT_EQ(second.exp_table[0], 2);
  // 1 / (1 + 0) -> 32767 (clamped), 1 / (1 + 1) -> 16384.
  EXPECT_EQ(second.reciprocal_table[0], 32767);
  EXPECT_EQ(second.reciprocal_table[512], 16384);
  for (size_t i = 0; i < 512; ++i) {
    EXPECT_LE(second.exp_table[i], second.exp_table[i + 1]) << i;
    EXPECT_GE(second.reciprocal_table[i], second.reciprocal_table[i + 1]) << i;
  }
}

TEST(Int16Softmax, MatchesTheSecondDerivationOnRandomRows) {
  const SecondSoftmax second;
  std::mt19937 rng(32768);
  std::uniform_int_distribution<int> pick(1, 60);
  for (int trial = 0; trial < 80; ++trial) {
    const int32_t rows = pick(rng) % 4 + 1, depth = pick(rng);
    const float scale = 0.00002f * static_cast<float>(pick(rng) * pick(rng));
    const float beta = trial % 4 == 0 ? 0.5f * static_cast<float>(pick(rng) % 4 + 1) : 1.0f;
    const OneOp m = softmax16(rows, depth, scale, beta);
    // Narrow spreads as well as the full int16 range.
    const int spread = trial % 2 == 0 ? 32767 : 2000;
    const auto input = random_input(rng, m, -spread - 1, spread);
    const double real = softmax_real_multiplier(scale, beta);
    EXPECT_EQ(run16(m, kReference, input), second.run(input, depth, real)) << "trial " << trial;
    for (KernelFamily family : {kPortable, kDsp}) {
      EXPECT_EQ(run16(m, family, input), second.run(input, depth, real, true)) << kernel_family_name(family)
                                                                               << " trial " << trial;
    }
  }
}

TEST(Int16Softmax, PinnedValuesAgreeWithTheSecondDerivation) {
  const SecondSoftmax second;
  struct Pinned {
    std::vector<int16_t> input;
    std::vector<int16_t> output;
  };
  // Input scale 0.0005: a step of 2000 is 1.0 in real units.
  const std::vector<Pinned> cases = {
      {{7, 7, 7, 7}, {8192, 8192, 8192, 8192}},
      {{0, -2000}, {23956, 8812}},
      {{-32768, 32767}, {2, 32766}},
  };
  for (const Pinned& c : cases) {
    const auto depth = static_cast<int32_t>(c.input.size());
    const OneOp m = softmax16(1, depth, 0.0005f);
    EXPECT_EQ(second.run(c.input, depth, softmax_real_multiplier(0.0005f, 1.0f)), c.output);
    EXPECT_EQ(second.run(c.input, depth, softmax_real_multiplier(0.0005f, 1.0f), true), c.output);
    for (KernelFamily family : kAllFamilies) EXPECT_EQ(run16(m, family, c.input), c.output) << kernel_family_name(family);
  }
}

TEST(Int16Softmax, CmsisNnWrapsAShareOfOneToMinus32768) {
  // A row of one element: exp(0) from the table is 32762, the reciprocal of
  // the sum 16387, and 32762 * 16387 / 2^14 = 32767.999 rounds to 32768.
  // TFLite clamps that to 32767; arm_softmax_s16 stores it as int16: -32768.
  const SecondSoftmax second;
  const OneOp m = softmax16(3, 1, 0.0005f);
  const std::vector<int16_t> input = {5, -32768, 32767};
  const double real = softmax_real_multiplier(0.0005f, 1.0f);
  EXPECT_EQ(second.run(input, 1, real), (std::vector<int16_t>{32767, 32767, 32767}));
  EXPECT_EQ(second.run(input, 1, real, true), (std::vector<int16_t>{-32768, -32768, -32768}));
  EXPECT_EQ(run16(m, kReference, input), (std::vector<int16_t>{32767, 32767, 32767}));
  for (KernelFamily family : {kPortable, kDsp}) {
    EXPECT_EQ(run16(m, family, input), (std::vector<int16_t>{-32768, -32768, -32768})) << kernel_family_name(family);
  }
}

TEST(Int16Softmax, SumsToOneMonotoneAndCloseToFloat) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 40; ++trial) {
    const int32_t depth = 2 + trial % 30;
    const OneOp m = softmax16(1, depth, 0.0002f);
    const auto input = random_input(rng, m, -20000, 20000);
    const auto out = run16(m, kReference, input);
    // 32767 is 1.0; each element rounds by at most 1/2 and the tables by a few steps.
    const int32_t sum = std::accumulate(out.begin(), out.end(), 0);
    EXPECT_NEAR(sum, 32767, depth + 40) << "trial " << trial;
    const double max = *std::max_element(input.begin(), input.end()) * 0.0002;
    double denominator = 0;
    for (int16_t x : input) denominator += std::exp(x * 0.0002 - max);
    for (size_t i = 0; i < input.size(); ++i) {
      EXPECT_NEAR(out[i], 32768.0 * std::exp(input[i] * 0.0002 - max) / denominator, 24.0) << "trial " << trial;
      for (size_t j = 0; j < input.size(); ++j) {
        if (input[i] > input[j]) {
          EXPECT_GE(out[i], out[j]) << "trial " << trial;
        }
      }
    }
  }
}

// ------------------------------------------- SOFTMAX: selection, O_s, errors

TEST(Int16Softmax, SelectsArmSoftmaxS16WithoutScratch) {
  const OneOp m = softmax16(2, 10);
  for (KernelFamily family : {kPortable, kDsp}) {
    EXPECT_EQ(implementation_of(m, family), "arm_softmax_s16");
    EXPECT_TRUE(scratch_of(m, family).empty());
  }
  EXPECT_EQ(implementation_of(m, kReference), "");
}

TEST(Int16Softmax, EveryFamilyAllowsTheWholeRowsOverTheInput) {
  // Each element's exponential is stored over it after its last read, and
  // rows go in order: the output may lie exactly on the input. Rows of two
  // or more within 1.0 of each other keep every share below one, where
  // arm_softmax_s16 computes the reference's values.
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> pick(2, 24);
  for (int trial = 0; trial < 200; ++trial) {
    const OneOp m = softmax16(pick(rng) % 5 + 1, pick(rng));
    const auto input = random_input(rng, m, -1000, 1000);
    const KernelFamily family = kAllFamilies[static_cast<size_t>(trial) % kAllFamilies.size()];
    const int64_t os = expect_tight_overlap(m, family, input, fmt::format("trial {}", trial));
    EXPECT_EQ(os, test::bytes_of_tensor(m, m.input)) << "trial " << trial;
  }
}

TEST(Int16Softmax, RejectsOperandsTflmCannotRun) {
  auto build = [](DataType in_type, Quantization in_q, DataType out_type, Quantization out_q, int inputs = 1,
                  int32_t depth = 4) {
    GraphBuilder b("bad int16 softmax");
    const int32_t in = b.add_tensor("input", in_type, {2, depth}, in_q);
    const int32_t out = b.add_tensor("output", out_type, {2, depth}, out_q);
    std::vector<int32_t> operands(static_cast<size_t>(inputs), in);
    return finish_one_op(b, OpKind::kSoftmax, operands, in, out, SoftmaxParams{1.0f});
  };
  const Quantization in_q = per_tensor(0.001f, 0);
  const Quantization out_q = per_tensor(1.0f / 32768, 0);
  for (KernelFamily family : kAllFamilies) {
    EXPECT_RUN_ERROR(build(DataType::kInt16, in_q, DataType::kInt8, per_tensor(1.0f / 256, -128)), family,
                     "op 0 (SOFTMAX): output type INT8 with INT16 input is not supported; supported: INT16");
    EXPECT_RUN_ERROR(build(DataType::kInt16, in_q, DataType::kInt16, per_tensor(1.0f / 65536, -32768)), family,
                     "op 0 (SOFTMAX): INT16 output must have zero point 0 and scale");
    EXPECT_RUN_ERROR(build(DataType::kInt16, Quantization{}, DataType::kInt16, out_q), family,
                     "op 0 (SOFTMAX): input (INT16) has no quantization parameters");
    EXPECT_RUN_ERROR(build(DataType::kInt16, in_q, DataType::kInt16, out_q, 2), family,
                     "op 0 (SOFTMAX): expected 1 input(s), got 2");
    EXPECT_RUN_ERROR(build(DataType::kInt16, in_q, DataType::kInt16, out_q, 1, 70000), family,
                     "op 0 (SOFTMAX): INT16 rows of 70000 elements overflow the 32-bit sum of exponentials");
    EXPECT_RUN_ERROR(build(DataType::kInt32, in_q, DataType::kInt32, out_q), family,
                     "op 0 (SOFTMAX): input type INT32 is not supported; supported: FLOAT32, INT8, INT16, UINT8");
  }
}

}  // namespace
}  // namespace dmo

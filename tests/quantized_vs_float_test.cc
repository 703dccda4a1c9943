// dmo's int8 and uint8 kernels agree with its float kernels on the same data
// within one quantization step, op by op, on real quantized models (also the
// legacy uint8 Coral models TFLM no longer runs) and on the zoo's quantized
// MobileNets. Each op of the quantized model is run again, alone, in the
// model's float twin (tests/float_twin.h) on the dequantized values of the
// quantized run's inputs; the float result, quantized with the output's
// parameters, must be within the op kind's bound of the quantized result.
//
// Also: the Coral models run inside dmo's own plan give the same outputs as
// unshared with no clobber.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <bitset>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "dmo/error.h"
#include "dmo/report/plan_report.h"
#include "dmo/runtime/input_pattern.h"
#include "dmo/runtime/interpreter.h"
#include "dmo/runtime/plan_verifier.h"
#include "dmo/runtime/tensor_placement.h"
#include "dmo/tflite/reader.h"
#include "dmo/zoo/graph_builder.h"
#include "dmo/zoo/zoo.h"
#include "float_twin.h"
#include "test_support.h"

namespace dmo {
namespace {

using test::dequantize;
using test::float_bytes;
using test::float_twin;
using test::floats_from;
using test::integer_values;
using test::is_quantized;
using test::quantize_value;

// Largest |quantized - quantize(float)| allowed, in quantization steps of the
// output. Ops that only move stored values (at one scale, as TFLite requires
// of them) must agree exactly. For the others one step covers what a correct integer kernel may differ by: the
// float result rounds once to the output grid, the integer kernel rounds its
// fixed-point rescaling (or, for AVERAGE_POOL_2D, rounds the mean of the raw
// stored values half away from zero where the float mean rounds the mean
// less the zero point), and near a half step either may fall on either side.
//
// SOFTMAX meets it too, though not by TFLite's arithmetic alone: its 8-bit
// algorithm computes exp(x - max) / sum as a Q0.31 product and divides it by
// 2^(num_bits_over_unit + 23), num_bits_over_unit = floor(log2(sum)). When a
// row's sum of exp(x - max) reaches 512 (a near-uniform row of 1001 classes,
// as the zoo's random MobileNets give) that exponent exceeds 31, outside what
// gemmlowp's RoundingDivideByPOT allows (an assert; an undefined shift in
// release builds, so TFLM has no defined result). dmo clamps it to 31, which
// gives exp / sum * 2^num_bits_over_unit <= 1 instead of 256 * exp / sum
// <= 0.5: 0 or 1 where the float result quantizes to 0, within one step.
double allowed_steps(const std::string& kind) {
  static const std::set<std::string> kMovesValues = {"RESHAPE", "SQUEEZE",       "SPLIT", "CONCATENATION",
                                                     "PAD",     "STRIDED_SLICE", "MAX_POOL_2D"};
  return kMovesValues.count(kind) ? 0.0 : 1.0;
}

struct KindStats {
  int64_t elements = 0;
  int64_t exact = 0;                // quantized result == quantize(float result)
  double max_steps = 0;             // largest difference, in output quantization steps
  int32_t worst_op = -1;            // the first op reaching max_steps
  std::bitset<256> values_seen;     // 8-bit results seen: shows the data is not degenerate
};

struct Comparison {
  std::map<std::string, KindStats> kinds;
  std::vector<std::string> failures;  // the first few elements over the bound
  int64_t failure_count = 0;
};

class OpComparer {
 public:
  explicit OpComparer(Comparison& result) : result_(result) {}

  // Records one element whose 8-bit result is `byte`; `detail` says what was
  // compared and is only called when the difference is over the bound.
  template <class Detail>
  void element(int32_t op, const std::string& kind, int64_t element, double steps, uint8_t byte,
               const Detail& detail) {
    KindStats& stats = result_.kinds[kind];
    ++stats.elements;
    if (steps == 0) ++stats.exact;
    if (steps > stats.max_steps) {
      stats.max_steps = steps;
      stats.worst_op = op;
    }
    stats.values_seen.set(byte);
    if (steps <= allowed_steps(kind)) return;
    if (++result_.failure_count <= 10) {
      result_.failures.push_back(fmt::format("op {} ({}) element {}: {} steps apart: {}", op, kind, element, steps,
                                             detail()));
    }
  }

 private:
  Comparison& result_;
};

// The real values of a tensor of the quantized run: dequantized, or its
// floats when it is already float.
std::vector<float> real_values(const Tensor& tensor, std::span<const uint8_t> bytes) {
  if (is_quantized(tensor)) return dequantize(tensor, bytes);
  if (tensor.type == DataType::kFloat32) return floats_from(bytes);
  throw Error(fmt::format("tensor '{}' of type {} has no real values", tensor.name, data_type_name(tensor.type)));
}

// Quantizes `real` with `out`'s parameters and compares with the quantized
// run's `actual` bytes of `out`, element by element.
void compare_quantized_output(OpComparer& comparer, int32_t op, const std::string& kind, const Tensor& out,
                              const std::vector<float>& real, std::span<const uint8_t> actual) {
  const test::ElementQuantization quantization(out);
  const std::vector<int64_t> got = integer_values(out, actual);
  for (size_t i = 0; i < got.size(); ++i) {
    const auto e = static_cast<int64_t>(i);
    const int64_t expected = quantize_value(real[i], quantization.scale(e), quantization.zero_point(e), out.type);
    const auto steps = static_cast<double>(std::llabs(got[i] - expected));
    comparer.element(op, kind, e, steps, static_cast<uint8_t>(got[i]), [&] {
      return fmt::format("'{}': float {} quantizes to {}, quantized kernel gave {}", out.name, real[i], expected,
                         got[i]);
    });
  }
}

// DEQUANTIZE: the quantized run's floats against dequantize(input), in steps
// of the input's scale.
void compare_dequantize(OpComparer& comparer, int32_t op, const Subgraph& graph, const Interpreter& quantized) {
  const Op& o = graph.ops[static_cast<size_t>(op)];
  const Tensor& in = graph.tensors[static_cast<size_t>(o.inputs.at(0))];
  const std::vector<float> expected = dequantize(in, quantized.tensor_bytes(o.inputs[0]));
  const std::vector<float> got = floats_from(quantized.tensor_bytes(o.outputs.at(0)));
  const std::vector<int64_t> stored = integer_values(in, quantized.tensor_bytes(o.inputs[0]));
  const test::ElementQuantization quantization(in);
  for (size_t i = 0; i < got.size(); ++i) {
    const auto e = static_cast<int64_t>(i);
    const double steps = std::abs(static_cast<double>(got[i]) - expected[i]) / quantization.scale(e);
    comparer.element(op, o.name(), e, steps, static_cast<uint8_t>(stored[i]),
                     [&] { return fmt::format("dequantized {}, kernel gave {}", expected[i], got[i]); });
  }
}

// Compares every op of `graph` (already run in `quantized`) with the same op
// of the float twin run on the dequantized inputs.
Comparison compare_with_float_twin(const Graph& graph, const Interpreter& quantized) {
  Comparison result;
  OpComparer comparer(result);
  const Subgraph& main = graph.main();
  const Graph twin = float_twin(graph);
  Interpreter floats(twin, unshared_placement(twin.main()));
  for (int32_t op = 0; op < static_cast<int32_t>(main.ops.size()); ++op) {
    const Op& o = main.ops[static_cast<size_t>(op)];
    const std::string kind = o.name();
    if (o.is(OpKind::kDequantize)) {
      compare_dequantize(comparer, op, main, quantized);
      continue;
    }
    if (o.is(OpKind::kQuantize)) {
      // Float (or requantized) real values straight into the output's scheme.
      const Tensor& in = main.tensors[static_cast<size_t>(o.inputs.at(0))];
      const Tensor& out = main.tensors[static_cast<size_t>(o.outputs.at(0))];
      compare_quantized_output(comparer, op, kind, out, real_values(in, quantized.tensor_bytes(o.inputs[0])),
                               quantized.tensor_bytes(o.outputs[0]));
      continue;
    }
    for (int32_t t : o.inputs) {
      if (t == kNoTensor) continue;
      const Tensor& tensor = main.tensors[static_cast<size_t>(t)];
      if (tensor.is_constant) continue;
      if (is_quantized(tensor)) floats.set_tensor(t, float_bytes(dequantize(tensor, quantized.tensor_bytes(t))));
      else floats.set_tensor(t, quantized.tensor_bytes(t));
    }
    floats.run_op(op);
    for (int32_t t : o.outputs) {
      const Tensor& out = main.tensors[static_cast<size_t>(t)];
      if (is_quantized(out) && out.type != DataType::kInt32) {
        compare_quantized_output(comparer, op, kind, out, floats_from(floats.tensor_bytes(t)),
                                 quantized.tensor_bytes(t));
        continue;
      }
      // Not quantized on either side: the same bytes.
      const auto expected = floats.tensor_bytes(t);
      const auto got = quantized.tensor_bytes(t);
      const bool same = expected.size() == got.size() && std::equal(expected.begin(), expected.end(), got.begin());
      comparer.element(op, kind, 0, same ? 0 : 1e9, 0,
                       [&] { return fmt::format("unquantized output '{}' differs", out.name); });
    }
  }
  return result;
}

std::string comparison_table(const std::string& model, const Comparison& c) {
  std::string text = fmt::format("{}:\n", model);
  for (const auto& [kind, s] : c.kinds) {
    text += fmt::format("  {:<18} max {} step(s) (first at op {}), exact {:.4f} of {} elements, {} distinct values\n",
                        kind, s.max_steps, s.worst_op,
                        s.elements ? static_cast<double>(s.exact) / static_cast<double>(s.elements) : 1.0, s.elements,
                        s.values_seen.count());
  }
  return text;
}

// Runs `graph` unshared on pattern input 1, compares each op with the float
// twin, prints the per-kind table and expects every element within bounds.
Comparison check_against_float_twin(const Graph& graph) {
  Interpreter quantized(graph, unshared_placement(graph.main()));
  quantized.set_inputs(pattern_input(graph.main(), 1));
  quantized.run();
  Comparison c = compare_with_float_twin(graph, quantized);
  std::printf("%s", comparison_table(graph.source, c).c_str());
  EXPECT_EQ(c.failure_count, 0) << fmt::format("{}", fmt::join(c.failures, "\n"));
  return c;
}

// dmo's own plan for the model runs it to the unshared outputs with no clobber.
void expect_dmo_plan_verifies(const Graph& graph) {
  const PlanResult report = plan_model(graph);
  const TensorPlacement placement = placement_from_plan(graph.main(), report.problem, report.dmo);
  const VerifyResult result = verify_placement(graph, placement, pattern_input(graph.main(), 1));
  EXPECT_TRUE(result.ok()) << result.describe(graph);
  EXPECT_GT(result.output_bytes_compared, 0);
}

Graph shared_model(const std::string& shared, const std::string& name) {
  return read_tflite_file(shared + "/models/" + name + ".tflite");
}

Quantization per_tensor(float scale, int64_t zero_point) { return Quantization{{scale}, {zero_point}, 0}; }

// int8 input -> CONV_2D (per-channel weights, per-channel bias) -> RESHAPE by
// an INT32 shape constant.
struct SmallConvModel {
  Graph graph;
  int32_t input, weights, bias, conv, shape, output;
};

SmallConvModel small_conv_model() {
  GraphBuilder b("small_conv");
  SmallConvModel m;
  m.input = b.add_tensor("input", DataType::kInt8, {1, 1, 1, 2}, per_tensor(0.5f, 1));
  m.weights = b.add_constant_values<int8_t>("weights", DataType::kInt8, {2, 1, 1, 2}, {1, 2, 3, 4},
                                            Quantization{{0.1f, 0.2f}, {0, 0}, 0});
  m.bias = b.add_constant_values<int32_t>("bias", DataType::kInt32, {2}, {10, -20},
                                          Quantization{{0.05f, 0.1f}, {0, 0}, 0});
  m.conv = b.add_tensor("conv", DataType::kInt8, {1, 1, 1, 2}, per_tensor(0.25f, -3));
  m.shape = b.add_constant_values<int32_t>("shape", DataType::kInt32, {2}, {1, 2});
  m.output = b.add_tensor("output", DataType::kInt8, {1, 2}, per_tensor(0.25f, -3));
  b.add_op(OpKind::kConv2D, {m.input, m.weights, m.bias}, {m.conv}, Conv2DParams{Padding::kValid});
  b.add_op(OpKind::kReshape, {m.conv, m.shape}, {m.output}, ReshapeParams{});
  b.set_inputs({m.input});
  b.set_outputs({m.output});
  m.graph = b.finish();
  return m;
}

TEST(FloatTwin, DequantizesQuantizedTensorsAndKeepsTheRest) {
  const SmallConvModel m = small_conv_model();
  const Graph twin = float_twin(m.graph);
  ASSERT_EQ(twin.subgraphs.size(), 1u);
  const auto& tensors = twin.main().tensors;
  for (int32_t t : {m.input, m.weights, m.bias, m.conv, m.output}) {
    SCOPED_TRACE(tensors[static_cast<size_t>(t)].name);
    EXPECT_EQ(tensors[static_cast<size_t>(t)].type, DataType::kFloat32);
    EXPECT_TRUE(tensors[static_cast<size_t>(t)].quantization.empty());
    EXPECT_EQ(tensors[static_cast<size_t>(t)].byte_size, 4 * tensors[static_cast<size_t>(t)].element_count);
  }
  // Weights per output channel (dimension 0): 0.1 * {1, 2}, 0.2 * {3, 4}.
  const std::vector<float> weights = floats_from(tensors[static_cast<size_t>(m.weights)].data);
  ASSERT_EQ(weights.size(), 4u);
  EXPECT_FLOAT_EQ(weights[0], 0.1f);
  EXPECT_FLOAT_EQ(weights[1], 0.2f);
  EXPECT_FLOAT_EQ(weights[2], 0.6f);
  EXPECT_FLOAT_EQ(weights[3], 0.8f);
  const std::vector<float> bias = floats_from(tensors[static_cast<size_t>(m.bias)].data);
  ASSERT_EQ(bias.size(), 2u);
  EXPECT_FLOAT_EQ(bias[0], 0.5f);
  EXPECT_FLOAT_EQ(bias[1], -2.0f);
  // The shape constant is not quantized: untouched.
  const Tensor& shape = tensors[static_cast<size_t>(m.shape)];
  EXPECT_EQ(shape.type, DataType::kInt32);
  EXPECT_EQ(shape.data, m.graph.main().tensors[static_cast<size_t>(m.shape)].data);
  EXPECT_EQ(twin.main().ops.size(), m.graph.main().ops.size());
}

TEST(FloatTwin, DequantizesAlongTheQuantizedDimension) {
  Tensor weights;
  weights.name = "depthwise";
  weights.type = DataType::kUInt8;
  weights.shape = {1, 2, 1, 3};  // channels last, as depthwise filters
  weights.element_count = 6;
  weights.byte_size = 6;
  weights.quantization = Quantization{{1.0f, 2.0f, 4.0f}, {10, 20, 30}, 3};
  const std::vector<uint8_t> stored = {11, 22, 33, 9, 20, 31};
  const std::vector<float> real = dequantize(weights, stored);
  EXPECT_EQ(real, (std::vector<float>{1, 4, 12, -1, 0, 4}));
  EXPECT_EQ(quantize_value(0.5f, 1.0f, 0, DataType::kInt8), 1);     // halves away from zero
  EXPECT_EQ(quantize_value(-0.5f, 1.0f, 0, DataType::kInt8), -1);
  EXPECT_EQ(quantize_value(1000.0f, 1.0f, 0, DataType::kInt8), 127);  // clamped
  EXPECT_EQ(quantize_value(-1000.0f, 1.0f, 0, DataType::kUInt8), 0);
}

// The comparison is not vacuous: a quantized result moved by three steps
// fails. Unmoved, the small conv shows why one step must be allowed.
TEST(QuantizedVsFloat, DetectsAMovedResult) {
  const SmallConvModel m = small_conv_model();
  Interpreter quantized(m.graph, unshared_placement(m.graph.main()));
  quantized.set_inputs(std::vector<uint8_t>{static_cast<uint8_t>(int8_t{7}), static_cast<uint8_t>(int8_t{-5})});
  quantized.run();
  const Comparison agreeing = compare_with_float_twin(m.graph, quantized);
  EXPECT_EQ(agreeing.failure_count, 0) << fmt::format("{}", fmt::join(agreeing.failures, "\n"));
  ASSERT_EQ(agreeing.kinds.count("CONV_2D"), 1u);
  EXPECT_EQ(agreeing.kinds.at("CONV_2D").elements, 2);
  // Channel 1: accumulator (7 - 1) * 3 + (-5 - 1) * 4 - 20 = -26, times
  // 0.5 * 0.2 / 0.25 = 0.4 is -10.4, so the float result quantizes to -10 - 3.
  // TFLite's MultiplyByQuantizedMultiplier rounds twice: -26 * 0.8 = -20.8 to
  // -21, then -21 / 2 = -10.5 away from zero to -11; the kernel gives -14.
  EXPECT_EQ(static_cast<int8_t>(quantized.tensor_bytes(m.conv)[1]), -14);
  EXPECT_EQ(agreeing.kinds.at("CONV_2D").max_steps, 1.0);

  std::vector<uint8_t> moved(quantized.tensor_bytes(m.conv).begin(), quantized.tensor_bytes(m.conv).end());
  moved[0] = static_cast<uint8_t>(static_cast<int8_t>(moved[0]) > 0 ? moved[0] - 3 : moved[0] + 3);
  quantized.set_tensor(m.conv, moved);
  const Comparison moved_result = compare_with_float_twin(m.graph, quantized);
  EXPECT_GT(moved_result.failure_count, 0);
  EXPECT_GE(moved_result.kinds.at("CONV_2D").max_steps, 2.0);
}

// QUANTIZE (float -> int8, int8 -> uint8) and DEQUANTIZE against the
// dequantized / quantized values directly.
TEST(QuantizedVsFloat, QuantizeAndDequantize) {
  GraphBuilder b("quantize_dequantize");
  const int32_t input = b.add_tensor("input", DataType::kFloat32, {2, 8});
  const int32_t q8 = b.add_tensor("int8", DataType::kInt8, {2, 8}, per_tensor(0.01f, 5));
  const int32_t u8 = b.add_tensor("uint8", DataType::kUInt8, {2, 8}, per_tensor(0.03f, 128));
  const int32_t output = b.add_tensor("output", DataType::kFloat32, {2, 8});
  b.add_op(OpKind::kQuantize, {input}, {q8});
  b.add_op(OpKind::kQuantize, {q8}, {u8});
  b.add_op(OpKind::kDequantize, {u8}, {output});
  b.set_inputs({input});
  b.set_outputs({output});
  const Graph graph = b.finish();
  const Comparison c = check_against_float_twin(graph);
  ASSERT_EQ(c.kinds.count("QUANTIZE"), 1u);
  ASSERT_EQ(c.kinds.count("DEQUANTIZE"), 1u);
  EXPECT_EQ(c.kinds.at("QUANTIZE").elements, 32);
  EXPECT_EQ(c.kinds.at("DEQUANTIZE").max_steps, 0.0);
}

TEST(QuantizedVsFloat, CoralMobilenetV1Uint8) {
  DMO_REQUIRE_SHARED(shared);
  const Graph graph = shared_model(shared, "coral_mobilenet_v1_0.25_128_quant");
  check_against_float_twin(graph);
  expect_dmo_plan_verifies(graph);
}

TEST(QuantizedVsFloat, CoralMobilenetV2Uint8) {
  DMO_REQUIRE_SHARED(shared);
  const Graph graph = shared_model(shared, "coral_mobilenet_v2_1.0_224_quant");
  check_against_float_twin(graph);
  expect_dmo_plan_verifies(graph);
}

TEST(QuantizedVsFloat, CoralSplitConcatUint8) {
  DMO_REQUIRE_SHARED(shared);
  const Graph graph = shared_model(shared, "coral_split_concat");
  const Comparison c = check_against_float_twin(graph);
  EXPECT_EQ(c.kinds.count("SPLIT"), 1u);
  EXPECT_EQ(c.kinds.count("CONCATENATION"), 1u);
  expect_dmo_plan_verifies(graph);
}

// Model names as test names: "mobilenet_v1_0.25_128_int8" -> "mobilenet_v1_0_25_128_int8".
std::string model_test_name(const testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

class SharedInt8Model : public testing::TestWithParam<std::string> {};

TEST_P(SharedInt8Model, AgreesWithFloatTwin) {
  DMO_REQUIRE_SHARED(shared);
  check_against_float_twin(shared_model(shared, GetParam()));
}

INSTANTIATE_TEST_SUITE_P(QuantizedVsFloat, SharedInt8Model,
                         testing::Values("tiny_vww_96_int8", "tiny_resnet8_int8", "tiny_kws_ref_model_int8",
                                         "tflm_person_detect_int8"),
                         model_test_name);

class ZooQuantizedModel : public testing::TestWithParam<std::string> {};

TEST_P(ZooQuantizedModel, AgreesWithFloatTwin) { check_against_float_twin(build_zoo_model(GetParam())); }

INSTANTIATE_TEST_SUITE_P(QuantizedVsFloat, ZooQuantizedModel,
                         testing::Values("mobilenet_v1_0.25_128_int8", "mobilenet_v1_0.25_128_uint8",
                                         "mobilenet_v2_0.35_96_int8"),
                         model_test_name);

}  // namespace
}  // namespace dmo

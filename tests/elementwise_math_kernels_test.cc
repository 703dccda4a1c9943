// Element-wise math kernels (CAST, DIV, MAXIMUM, MINIMUM, ...): values
// against hand-computed TFLite semantics for every type TFLM registers
// (wrapping, truncation, rounding, saturation, division by zero), the errors
// for what they do not run, and the safe overlap their loop order gives:
// the address-only O_s, no clobber at it and a clobber one byte beyond, on
// fixed cases and on random shapes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

#include <fmt/format.h>

#include "dmo/error.h"
#include "dmo/runtime/interpreter.h"
#include "dmo/tflite/graph_writer.h"
#include "dmo/zoo/graph_builder.h"
#include "single_op_overlap.h"
#include "test_support.h"

namespace dmo {
namespace {

using test::bytes_of;
using test::per_tensor;
using test::values_from;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

struct Operand {
  DataType type = DataType::kFloat32;
  Shape shape;
  Quantization quant = {};
};

// One op whose inputs are all graph inputs.
struct MathOp {
  Graph graph;
  std::vector<int32_t> inputs;
  int32_t output = -1;

  // The op with input `i` as the one whose overlap with the output is measured.
  test::OneOp pair(size_t i = 0) const { return {graph, inputs[i], output}; }
};

MathOp make_op(OpKind kind, const std::vector<Operand>& inputs, const Operand& output, OpParams params = NoParams{}) {
  GraphBuilder b("elementwise_math_kernels_test");
  MathOp m;
  for (size_t i = 0; i < inputs.size(); ++i) {
    m.inputs.push_back(b.add_tensor(fmt::format("input{}", i), inputs[i].type, inputs[i].shape, inputs[i].quant));
  }
  m.output = b.add_tensor("output", output.type, output.shape, output.quant);
  b.add_op(kind, m.inputs, {m.output}, std::move(params));
  b.set_inputs(m.inputs);
  b.set_outputs({m.output});
  m.graph = b.finish();
  return m;
}

std::vector<uint8_t> concat(std::vector<uint8_t> a, const std::vector<uint8_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Runs the op unshared, directly and with the checking policy (no clobber,
// the same bytes); returns the output values.
template <typename Out>
std::vector<Out> run(const MathOp& m, const std::vector<uint8_t>& input) {
  Interpreter direct(m.graph, unshared_placement(m.graph.main()));
  direct.set_inputs(input);
  direct.run();
  Interpreter checked(m.graph, unshared_placement(m.graph.main()));
  checked.set_inputs(input);
  EXPECT_FALSE(checked.run_checked().has_value());
  EXPECT_EQ(direct.tensor_contents(m.output), checked.tensor_contents(m.output))
      << "the checking policy computes differently";
  return values_from<Out>(direct.tensor_bytes(m.output));
}

// The message of the dmo::Error running the op throws ("" if none).
std::string run_error(const MathOp& m) {
  try {
    Interpreter interpreter(m.graph, unshared_placement(m.graph.main()));
    interpreter.run();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_RUN_ERROR(op, text)                                              \
  do {                                                                          \
    const std::string message = run_error(op);                                 \
    EXPECT_NE(message.find(text), std::string::npos) << "message: " << message; \
  } while (0)

std::vector<uint8_t> random_bytes(std::mt19937& rng, int64_t count) {
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<uint8_t> bytes(static_cast<size_t>(count));
  for (auto& b : bytes) b = static_cast<uint8_t>(byte(rng));
  return bytes;
}

int64_t input_bytes(const MathOp& m) {
  int64_t total = 0;
  for (int32_t t : m.inputs) total += m.graph.main().tensors[static_cast<size_t>(t)].byte_size;
  return total;
}

// The two facts that make the algorithmic O_s of input `i` the exact one:
// no clobber with the output that far over the input, a clobber one byte
// further (when the output is long enough for that). Returns O_s.
int64_t expect_exact_overlap(const MathOp& m, size_t i, const std::vector<uint8_t>& input) {
  const test::OneOp pair = m.pair(i);
  const int64_t os = test::addresses(pair).safe_overlap();
  EXPECT_FALSE(test::clobbers_at_overlap(pair, os, input)) << "at O_s " << os;
  if (os < test::bytes_of_tensor(pair, pair.output)) {
    EXPECT_TRUE(test::clobbers_at_overlap(pair, os + 1, input)) << "one byte beyond O_s " << os;
  }
  return os;
}

// ------------------------------------------------------------------- CAST

MathOp cast_op(DataType from, DataType to, const Shape& shape) {
  return make_op(OpKind::kCast, {{from, shape}}, {to, shape});
}

TEST(Cast, IntegersNarrowByWrapping) {
  EXPECT_EQ(run<int8_t>(cast_op(DataType::kInt32, DataType::kInt8, {6}),
                        bytes_of(std::vector<int32_t>{127, 128, -129, 300, -1, 0})),
            (std::vector<int8_t>{127, -128, 127, 44, -1, 0}));
  EXPECT_EQ(run<int16_t>(cast_op(DataType::kInt32, DataType::kInt16, {3}),
                         bytes_of(std::vector<int32_t>{32767, 32768, -65537})),
            (std::vector<int16_t>{32767, -32768, -1}));
  EXPECT_EQ(run<int8_t>(cast_op(DataType::kInt16, DataType::kInt8, {2}), bytes_of(std::vector<int16_t>{255, -256})),
            (std::vector<int8_t>{-1, 0}));
}

TEST(Cast, IntegersWidenBySignOrZeroExtension) {
  EXPECT_EQ(run<int32_t>(cast_op(DataType::kInt16, DataType::kInt32, {3}),
                         bytes_of(std::vector<int16_t>{-32768, 32767, -1})),
            (std::vector<int32_t>{-32768, 32767, -1}));
  EXPECT_EQ(run<int16_t>(cast_op(DataType::kInt8, DataType::kInt16, {2}), bytes_of(std::vector<int8_t>{-128, 127})),
            (std::vector<int16_t>{-128, 127}));
  EXPECT_EQ(run<uint32_t>(cast_op(DataType::kInt8, DataType::kUInt32, {2}), bytes_of(std::vector<int8_t>{-1, 5})),
            (std::vector<uint32_t>{4294967295u, 5u}));
}

TEST(Cast, Uint32AndInt32ReinterpretTheBits) {
  EXPECT_EQ(run<int32_t>(cast_op(DataType::kUInt32, DataType::kInt32, {3}),
                         bytes_of(std::vector<uint32_t>{0u, 4294967295u, 2147483648u})),
            (std::vector<int32_t>{0, -1, std::numeric_limits<int32_t>::min()}));
  EXPECT_EQ(run<uint32_t>(cast_op(DataType::kInt32, DataType::kUInt32, {2}),
                          bytes_of(std::vector<int32_t>{-2, 7})),
            (std::vector<uint32_t>{4294967294u, 7u}));
  EXPECT_EQ(run<int8_t>(cast_op(DataType::kUInt32, DataType::kInt8, {2}),
                        bytes_of(std::vector<uint32_t>{255u, 4294967168u})),
            (std::vector<int8_t>{-1, -128}));
}

TEST(Cast, FloatsTruncateTowardZeroAndSaturateAsCortexM) {
  EXPECT_EQ(run<int32_t>(cast_op(DataType::kFloat32, DataType::kInt32, {7}),
                         bytes_of(std::vector<float>{1.9f, -1.9f, -0.5f, 3e9f, -3e9f, kNaN, kInf})),
            (std::vector<int32_t>{1, -1, 0, std::numeric_limits<int32_t>::max(), std::numeric_limits<int32_t>::min(),
                                  0, std::numeric_limits<int32_t>::max()}));
  // Into int8: the truncated int32 wraps (200 -> -56, INT32_MAX -> -1).
  EXPECT_EQ(run<int8_t>(cast_op(DataType::kFloat32, DataType::kInt8, {4}),
                        bytes_of(std::vector<float>{200.7f, -127.9f, 3e9f, kNaN})),
            (std::vector<int8_t>{-56, -127, -1, 0}));
  EXPECT_EQ(run<int16_t>(cast_op(DataType::kFloat32, DataType::kInt16, {2}), bytes_of(std::vector<float>{-32768.9f, 40000.0f})),
            (std::vector<int16_t>{-32768, -25536}));
  EXPECT_EQ(run<uint32_t>(cast_op(DataType::kFloat32, DataType::kUInt32, {4}),
                          bytes_of(std::vector<float>{-5.0f, 1e10f, 3.7f, 4294967040.0f})),
            (std::vector<uint32_t>{0u, 4294967295u, 3u, 4294967040u}));
}

TEST(Cast, IntegersToFloatRoundToNearestEven) {
  EXPECT_EQ(run<float>(cast_op(DataType::kInt32, DataType::kFloat32, {3}),
                       bytes_of(std::vector<int32_t>{16777217, 16777219, -7})),
            (std::vector<float>{16777216.0f, 16777220.0f, -7.0f}));
  EXPECT_EQ(run<float>(cast_op(DataType::kUInt32, DataType::kFloat32, {1}), bytes_of(std::vector<uint32_t>{4294967295u})),
            (std::vector<float>{4294967296.0f}));
  EXPECT_EQ(run<float>(cast_op(DataType::kInt8, DataType::kFloat32, {2}), bytes_of(std::vector<int8_t>{-128, 3})),
            (std::vector<float>{-128.0f, 3.0f}));
  EXPECT_EQ(run<float>(cast_op(DataType::kInt16, DataType::kFloat32, {1}), bytes_of(std::vector<int16_t>{-300})),
            (std::vector<float>{-300.0f}));
  EXPECT_EQ(run<float>(cast_op(DataType::kFloat32, DataType::kFloat32, {2}), bytes_of(std::vector<float>{-0.0f, 2.5f})),
            (std::vector<float>{-0.0f, 2.5f}));
}

TEST(Cast, BoolGivesZeroOrOne) {
  const std::vector<uint8_t> flags = {0, 1, 1, 0};
  EXPECT_EQ(run<float>(cast_op(DataType::kBool, DataType::kFloat32, {4}), flags),
            (std::vector<float>{0.0f, 1.0f, 1.0f, 0.0f}));
  EXPECT_EQ(run<int32_t>(cast_op(DataType::kBool, DataType::kInt32, {4}), flags), (std::vector<int32_t>{0, 1, 1, 0}));
  EXPECT_EQ(run<int8_t>(cast_op(DataType::kBool, DataType::kInt8, {4}), flags), (std::vector<int8_t>{0, 1, 1, 0}));
}

TEST(Cast, RejectsTypesTflmDoesNotCastAndMismatchedOperands) {
  EXPECT_RUN_ERROR(cast_op(DataType::kInt64, DataType::kInt32, {2}),
                   "op 0 (CAST): input type INT64 is not supported; supported: INT8, INT16, INT32, UINT32, FLOAT32, BOOL");
  EXPECT_RUN_ERROR(cast_op(DataType::kInt32, DataType::kBool, {2}),
                   "op 0 (CAST): output type BOOL is not supported; supported: INT8, INT16, INT32, UINT32, FLOAT32");
  EXPECT_RUN_ERROR(make_op(OpKind::kCast, {{DataType::kInt32, {2}}}, {DataType::kInt8, {3}}),
                   "op 0 (CAST): input has 2 elements but output has 3");
  EXPECT_RUN_ERROR(make_op(OpKind::kCast, {{DataType::kInt32, {2}}, {DataType::kInt32, {2}}}, {DataType::kInt8, {2}}),
                   "op 0 (CAST): expected 1 input(s), got 2");
}

TEST(Cast, NarrowingAndSameWidthOverlapTheWholeOutputWideningLessByTheGrowth) {
  std::mt19937 rng(7);
  // Output element i is stored right after input element i is loaded.
  MathOp narrow = cast_op(DataType::kInt32, DataType::kInt8, {9});
  EXPECT_EQ(expect_exact_overlap(narrow, 0, random_bytes(rng, 36)), 9);
  MathOp same = cast_op(DataType::kUInt32, DataType::kInt32, {5});
  EXPECT_EQ(expect_exact_overlap(same, 0, random_bytes(rng, 20)), 20);
  // int8 -> int32 of n elements: the write of element n-2 reaches output byte
  // 4n-5 before input byte n-1 is read, so O_s = 4n - (3n - 3) = n + 3.
  MathOp wide = cast_op(DataType::kInt8, DataType::kInt32, {9});
  EXPECT_EQ(expect_exact_overlap(wide, 0, random_bytes(rng, 9)), 12);
}

TEST(Cast, RandomShapesAndTypePairsOverlapExactly) {
  std::mt19937 rng(2024);
  const std::vector<DataType> from = {DataType::kInt8,    DataType::kInt16, DataType::kInt32,
                                      DataType::kUInt32,  DataType::kFloat32};
  const std::vector<DataType> to = {DataType::kInt8, DataType::kInt16, DataType::kInt32, DataType::kUInt32,
                                    DataType::kFloat32};
  std::uniform_int_distribution<size_t> pick_from(0, from.size() - 1), pick_to(0, to.size() - 1);
  std::uniform_int_distribution<int32_t> dim(1, 5), rank(1, 3);
  for (int trial = 0; trial < 200; ++trial) {
    Shape shape(static_cast<size_t>(rank(rng)));
    for (auto& d : shape) d = dim(rng);
    const MathOp m = cast_op(from[pick_from(rng)], to[pick_to(rng)], shape);
    expect_exact_overlap(m, 0, random_bytes(rng, input_bytes(m)));
  }
}

// -------------------------------------------------------------------- DIV

ElementwiseParams with_activation(Activation a) {
  ElementwiseParams p;
  p.activation = a;
  return p;
}

MathOp div_op(DataType type, const Shape& a, const Shape& b, const Shape& out, Activation act = Activation::kNone,
              Quantization qa = {}, Quantization qb = {}, Quantization qo = {}) {
  return make_op(OpKind::kDiv, {{type, a, qa}, {type, b, qb}}, {type, out, qo}, with_activation(act));
}

TEST(Div, FloatClampsEvenWithoutAnActivation) {
  // TFLite's range for no activation is [lowest, max]: x / 0 gives +-FLT_MAX, NaN stays.
  const MathOp m = div_op(DataType::kFloat32, {5}, {5}, {5});
  const std::vector<float> out =
      run<float>(m, concat(bytes_of(std::vector<float>{7.0f, 1.0f, -1.0f, 0.0f, 1.0f}),
                           bytes_of(std::vector<float>{2.0f, 0.0f, 0.0f, 0.0f, 3.0f})));
  EXPECT_EQ(out[0], 3.5f);
  EXPECT_EQ(out[1], std::numeric_limits<float>::max());
  EXPECT_EQ(out[2], std::numeric_limits<float>::lowest());
  EXPECT_TRUE(std::isnan(out[3]));
  EXPECT_EQ(out[4], 1.0f / 3.0f);
  const MathOp relu6 = div_op(DataType::kFloat32, {3}, {3}, {3}, Activation::kRelu6);
  EXPECT_EQ(run<float>(relu6, concat(bytes_of(std::vector<float>{7.0f, -3.0f, 5.0f}),
                                     bytes_of(std::vector<float>{1.0f, 1.0f, 2.0f}))),
            (std::vector<float>{6.0f, 0.0f, 2.5f}));
}

TEST(Div, FloatBroadcastsAlongTheRowsAndColumns) {
  // [2,1] / [3] -> [2,3]: out[i][j] = a[i] / b[j].
  const MathOp m = div_op(DataType::kFloat32, {2, 1}, {3}, {2, 3});
  EXPECT_EQ(run<float>(m, concat(bytes_of(std::vector<float>{12.0f, -6.0f}),
                                 bytes_of(std::vector<float>{1.0f, 2.0f, 4.0f}))),
            (std::vector<float>{12.0f, 6.0f, 3.0f, -6.0f, -3.0f, -1.5f}));
}

TEST(Div, Int32TruncatesTowardZeroAndDefinesWhatCLeavesOpen) {
  const MathOp m = div_op(DataType::kInt32, {7}, {7}, {7});
  const int32_t min = std::numeric_limits<int32_t>::min();
  EXPECT_EQ(run<int32_t>(m, concat(bytes_of(std::vector<int32_t>{7, -7, 7, -7, 5, min, min}),
                                   bytes_of(std::vector<int32_t>{2, 2, -2, -2, 0, -1, 1}))),
            (std::vector<int32_t>{3, -3, -3, 3, 0, min, min}));
  const MathOp relu = div_op(DataType::kInt32, {2}, {1}, {2}, Activation::kRelu);
  EXPECT_EQ(run<int32_t>(relu, concat(bytes_of(std::vector<int32_t>{-9, 9}), bytes_of(std::vector<int32_t>{4}))),
            (std::vector<int32_t>{0, 2}));
}

TEST(Div, Int8RequantizesTheQuotient) {
  // Scales 0.1 / (0.1 * 0.1): the output is 10 * (a - za) / (b - zb) + zo,
  // rounded to nearest (no ties here), saturated to int8.
  const Quantization qa = per_tensor(0.1f, 3), qb = per_tensor(0.1f, -2), qo = per_tensor(0.1f, 5);
  const MathOp m = div_op(DataType::kInt8, {8}, {8}, {8}, Activation::kNone, qa, qb, qo);
  // (a - 3) / (b + 2): 7/2, -7/2, 1/3, 2/3, 5/-3 (signs swapped first),
  // 124/-1 and -131/1 (saturating), 0/5.
  const std::vector<int8_t> a = {10, -4, 4, 5, 8, 127, 3, -128};
  const std::vector<int8_t> b = {0, 0, 1, 1, -5, -3, 3, -1};
  EXPECT_EQ(run<int8_t>(m, concat(bytes_of(a), bytes_of(b))),
            (std::vector<int8_t>{40, -30, 8, 12, -12, -128, 5, -128}));
  // RELU clamps at the output zero point.
  const MathOp relu = div_op(DataType::kInt8, {2}, {2}, {2}, Activation::kRelu, qa, qb, qo);
  EXPECT_EQ(run<int8_t>(relu, concat(bytes_of(std::vector<int8_t>{-4, 10}), bytes_of(std::vector<int8_t>{0, 0}))),
            (std::vector<int8_t>{5, 40}));
}

TEST(Div, Int8QuotientsMatchRoundedRealDivisionAwayFromTies) {
  // Over all int8 pairs with zero points 0 and scales giving multiplier
  // 1/4: the fixed-point result is the real quotient / 4 rounded, except
  // within a hair of a tie, where the reciprocal's approximation decides.
  const Quantization q1 = per_tensor(1.0f, 0), q2 = per_tensor(2.0f, 0), qo = per_tensor(2.0f, 0);
  const MathOp m = div_op(DataType::kInt8, {256, 255}, {256, 255}, {256, 255}, Activation::kNone, q1, q2, qo);
  std::vector<int8_t> a, b;
  for (int x = -128; x < 128; ++x) {
    for (int y = -128; y < 128; ++y) {
      if (y == 0) continue;
      a.push_back(static_cast<int8_t>(x));
      b.push_back(static_cast<int8_t>(y));
    }
  }
  const std::vector<int8_t> out = run<int8_t>(m, concat(bytes_of(a), bytes_of(b)));
  int checked = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double real = static_cast<double>(a[i]) / b[i] / 4.0;
    const double fraction = std::abs(real - std::trunc(real));
    if (std::abs(fraction - 0.5) < 1e-6) continue;
    const double expected = std::clamp(std::round(real), -128.0, 127.0);
    ASSERT_EQ(out[i], static_cast<int8_t>(expected)) << int{a[i]} << " / " << int{b[i]};
    ++checked;
  }
  EXPECT_GT(checked, 60000);
}

TEST(Div, RejectsMixedTypesQuantizedInt32AndOtherTypes) {
  EXPECT_RUN_ERROR(make_op(OpKind::kDiv, {{DataType::kFloat32, {2}}, {DataType::kInt32, {2}}},
                           {DataType::kFloat32, {2}}, with_activation(Activation::kNone)),
                   "op 0 (DIV): input 1 type INT32 differs from input 0 type FLOAT32");
  EXPECT_RUN_ERROR(div_op(DataType::kInt16, {2}, {2}, {2}),
                   "op 0 (DIV): input type INT16 is not supported; supported: FLOAT32, INT32, INT8");
  EXPECT_RUN_ERROR(div_op(DataType::kInt32, {2}, {2}, {2}, Activation::kNone, per_tensor(1.0f, 0)),
                   "op 0 (DIV): INT32 input 0 is quantized; only unquantized INT32 is supported");
  EXPECT_RUN_ERROR(div_op(DataType::kInt8, {2}, {2}, {2}), "op 0 (DIV): input 0 (INT8) has no quantization parameters");
  EXPECT_RUN_ERROR(div_op(DataType::kFloat32, {2, 3}, {2}, {2, 3}),
                   "op 0 (DIV): input shapes 2x3 and 2 do not broadcast to output shape 2x3");
  EXPECT_RUN_ERROR(make_op(OpKind::kDiv, {{DataType::kFloat32, {2}}}, {DataType::kFloat32, {2}}),
                   "op 0 (DIV): expected 2 input(s), got 1");
  // A multiplier beyond what TFLite's shifts can apply.
  EXPECT_RUN_ERROR(div_op(DataType::kInt8, {2}, {2}, {2}, Activation::kNone, per_tensor(1.0f, 0),
                          per_tensor(1e-5f, 0), per_tensor(1e-5f, 0)),
                   "op 0 (DIV): scales give a requantization multiplier of 2^33 or more");
}

TEST(Div, SameShapeInputsOverlapTheWholeOutputABroadcastOneLess) {
  std::mt19937 rng(11);
  const MathOp flat = div_op(DataType::kFloat32, {2, 3}, {2, 3}, {2, 3});
  const auto bytes = random_bytes(rng, input_bytes(flat));
  EXPECT_EQ(expect_exact_overlap(flat, 0, bytes), 24);
  EXPECT_EQ(expect_exact_overlap(flat, 1, bytes), 24);
  // b = [3] is read again for every row: only the last row of the output,
  // 12 bytes, may lie over it. a = [2,1] has a[1] (byte 4) read last just
  // before out[1][2], after bytes 0..19 were written: O_s = 24 - 16.
  const MathOp rows = div_op(DataType::kFloat32, {2, 1}, {3}, {2, 3});
  const auto row_bytes = random_bytes(rng, input_bytes(rows));
  EXPECT_EQ(expect_exact_overlap(rows, 1, row_bytes), 12);
  EXPECT_EQ(expect_exact_overlap(rows, 0, row_bytes), 8);
}

// ---------------------------------------------------------- MAXIMUM, MINIMUM

MathOp max_min_op(OpKind kind, DataType type, const Shape& a, const Shape& b, const Shape& out) {
  return make_op(kind, {{type, a}, {type, b}}, {type, out});
}

TEST(MaximumMinimum, EveryTypePicksElementWise) {
  const auto ab = [](auto a, auto b) { return concat(bytes_of(a), bytes_of(b)); };
  EXPECT_EQ(run<int8_t>(max_min_op(OpKind::kMaximum, DataType::kInt8, {3}, {3}, {3}),
                        ab(std::vector<int8_t>{-128, 5, 7}, std::vector<int8_t>{127, 5, -7})),
            (std::vector<int8_t>{127, 5, 7}));
  EXPECT_EQ(run<int8_t>(max_min_op(OpKind::kMinimum, DataType::kInt8, {3}, {3}, {3}),
                        ab(std::vector<int8_t>{-128, 5, 7}, std::vector<int8_t>{127, 5, -7})),
            (std::vector<int8_t>{-128, 5, -7}));
  EXPECT_EQ(run<int16_t>(max_min_op(OpKind::kMaximum, DataType::kInt16, {2}, {2}, {2}),
                         ab(std::vector<int16_t>{-300, 300}, std::vector<int16_t>{-200, 200})),
            (std::vector<int16_t>{-200, 300}));
  EXPECT_EQ(run<int32_t>(max_min_op(OpKind::kMinimum, DataType::kInt32, {2}, {2}, {2}),
                         ab(std::vector<int32_t>{-70000, 70000}, std::vector<int32_t>{0, 69999})),
            (std::vector<int32_t>{-70000, 69999}));
  const int64_t big = int64_t{1} << 40;
  EXPECT_EQ(run<int64_t>(max_min_op(OpKind::kMaximum, DataType::kInt64, {2}, {2}, {2}),
                         ab(std::vector<int64_t>{big, -big}, std::vector<int64_t>{big + 1, -big - 1})),
            (std::vector<int64_t>{big + 1, -big}));
}

TEST(MaximumMinimum, FloatNaNResultDependsOnWhichSideHoldsIt) {
  // TFLM compares a > b (a < b) and takes b otherwise: a NaN first operand
  // loses, a NaN second one wins, and of 0 and -0 the second is taken.
  const auto in = concat(bytes_of(std::vector<float>{kNaN, 1.0f, 0.0f}), bytes_of(std::vector<float>{1.0f, kNaN, -0.0f}));
  const auto max = run<float>(max_min_op(OpKind::kMaximum, DataType::kFloat32, {3}, {3}, {3}), in);
  EXPECT_EQ(max[0], 1.0f);
  EXPECT_TRUE(std::isnan(max[1]));
  EXPECT_TRUE(std::signbit(max[2]));
  const auto min = run<float>(max_min_op(OpKind::kMinimum, DataType::kFloat32, {3}, {3}, {3}), in);
  EXPECT_EQ(min[0], 1.0f);
  EXPECT_TRUE(std::isnan(min[1]));
  EXPECT_TRUE(std::signbit(min[2]));
}

TEST(MaximumMinimum, BroadcastsAScalarClip) {
  // The audio preprocessor's clip: max(x, 0) then min(x, 255) with scalars.
  const MathOp low = max_min_op(OpKind::kMaximum, DataType::kInt32, {1, 4}, {}, {1, 4});
  EXPECT_EQ(run<int32_t>(low, concat(bytes_of(std::vector<int32_t>{-5, 0, 300, 7}), bytes_of(std::vector<int32_t>{0}))),
            (std::vector<int32_t>{0, 0, 300, 7}));
  const MathOp high = max_min_op(OpKind::kMinimum, DataType::kInt32, {}, {1, 4}, {1, 4});
  EXPECT_EQ(run<int32_t>(high, concat(bytes_of(std::vector<int32_t>{255}), bytes_of(std::vector<int32_t>{-5, 0, 300, 7}))),
            (std::vector<int32_t>{-5, 0, 255, 7}));
}

TEST(MaximumMinimum, RejectsMixedAndUnsupportedTypes) {
  EXPECT_RUN_ERROR(make_op(OpKind::kMaximum, {{DataType::kInt8, {2}}, {DataType::kInt16, {2}}}, {DataType::kInt8, {2}}),
                   "op 0 (MAXIMUM): input 1 type INT16 differs from output type INT8");
  EXPECT_RUN_ERROR(max_min_op(OpKind::kMinimum, DataType::kUInt8, {2}, {2}, {2}),
                   "op 0 (MINIMUM): output type UINT8 is not supported; supported: FLOAT32, INT8, INT16, INT32, INT64");
  EXPECT_RUN_ERROR(max_min_op(OpKind::kMinimum, DataType::kInt8, {2}, {3}, {3}),
                   "op 0 (MINIMUM): input shapes 2 and 3 do not broadcast to output shape 3");
  EXPECT_RUN_ERROR(make_op(OpKind::kMaximum, {{DataType::kInt8, {2}}}, {DataType::kInt8, {2}}),
                   "op 0 (MAXIMUM): expected 2 input(s), got 1");
}

// Random shapes with random broadcasting, over DIV, MAXIMUM and MINIMUM in
// several types: the algorithmic O_s of each input is exact.
TEST(BinaryMath, RandomBroadcastsOverlapExactly) {
  std::mt19937 rng(99);
  std::uniform_int_distribution<int32_t> dim(1, 4), rank(0, 4), coin(0, 2);
  struct Case {
    OpKind kind;
    DataType type;
    Quantization q;
  };
  const std::vector<Case> cases = {
      {OpKind::kDiv, DataType::kFloat32, {}},          {OpKind::kDiv, DataType::kInt32, {}},
      {OpKind::kDiv, DataType::kInt8, per_tensor(0.5f, 1)}, {OpKind::kMaximum, DataType::kInt8, {}},
      {OpKind::kMinimum, DataType::kInt16, {}},         {OpKind::kMaximum, DataType::kInt64, {}},
  };
  std::uniform_int_distribution<size_t> pick(0, cases.size() - 1);
  for (int trial = 0; trial < 240; ++trial) {
    Shape out(static_cast<size_t>(rank(rng)));
    for (auto& d : out) d = dim(rng);
    // Each dimension broadcast in at most one of the two inputs.
    Shape a = out, b = out;
    for (size_t d = 0; d < out.size(); ++d) {
      const int32_t which = coin(rng);
      if (which == 0) a[d] = 1;
      if (which == 1) b[d] = 1;
    }
    if (!a.empty() && a[0] == 1 && coin(rng) == 0) a.erase(a.begin());  // a lower rank
    const Case c = cases[pick(rng)];
    const MathOp m = make_op(c.kind, {{c.type, a, c.q}, {c.type, b, c.q}}, {c.type, out, c.q},
                             c.kind == OpKind::kDiv ? OpParams{with_activation(Activation::kNone)} : OpParams{});
    const auto bytes = random_bytes(rng, input_bytes(m));
    expect_exact_overlap(m, 0, bytes);
    expect_exact_overlap(m, 1, bytes);
  }
}

// -------------------------------------------------------------- LEAKY_RELU

LeakyReluParams leaky(float alpha) {
  LeakyReluParams p;
  p.alpha = alpha;
  return p;
}

TEST(LeakyRelu, FloatScalesOnlyTheNegativeSide) {
  const MathOp m = make_op(OpKind::kLeakyRelu, {{DataType::kFloat32, {5}}}, {DataType::kFloat32, {5}}, leaky(0.5f));
  const auto out = run<float>(m, bytes_of(std::vector<float>{-3.0f, 2.0f, 0.0f, -0.0f, -kInf}));
  EXPECT_EQ(out[0], -1.5f);
  EXPECT_EQ(out[1], 2.0f);
  EXPECT_EQ(out[2], 0.0f);
  EXPECT_TRUE(std::signbit(out[3])) << "-0 is not > 0: -0 * alpha";
  EXPECT_EQ(out[4], -kInf);
}

TEST(LeakyRelu, Int8UsesTheIdentityAndTheAlphaMultiplier) {
  // Identity multiplier 0.5 / 0.5 = 1, alpha multiplier 0.5 * 0.25 / 0.5;
  // halves round away from zero: -2.5 -> -3, -0.75 -> -1.
  const MathOp m = make_op(OpKind::kLeakyRelu, {{DataType::kInt8, {6}, per_tensor(0.5f, 0)}},
                           {DataType::kInt8, {6}, per_tensor(0.5f, 0)}, leaky(0.25f));
  EXPECT_EQ(run<int8_t>(m, bytes_of(std::vector<int8_t>{10, -10, -3, -128, 127, 0})),
            (std::vector<int8_t>{10, -3, -1, -32, 127, 0}));
  // Zero points shift both sides; a smaller output scale saturates.
  const MathOp shifted = make_op(OpKind::kLeakyRelu, {{DataType::kInt8, {4}, per_tensor(0.5f, -10)}},
                                 {DataType::kInt8, {4}, per_tensor(0.125f, 5)}, leaky(0.25f));
  // (x + 10) * 4 + 5 above the zero point, (x + 10) * 1 + 5 below it.
  EXPECT_EQ(run<int8_t>(shifted, bytes_of(std::vector<int8_t>{-20, -10, 0, 100})),
            (std::vector<int8_t>{-5, 5, 45, 127}));
}

TEST(LeakyRelu, Int16SaturatesAtTheTypeBounds) {
  const MathOp m = make_op(OpKind::kLeakyRelu, {{DataType::kInt16, {4}, per_tensor(1.0f, 0)}},
                           {DataType::kInt16, {4}, per_tensor(0.5f, 0)}, leaky(0.5f));
  // x * 2 above 0, x * 1 below.
  EXPECT_EQ(run<int16_t>(m, bytes_of(std::vector<int16_t>{-3, 3, 20000, -32768})),
            (std::vector<int16_t>{-3, 6, 32767, -32768}));
}

TEST(LeakyRelu, RejectsOtherTypesAndMismatches) {
  EXPECT_RUN_ERROR(make_op(OpKind::kLeakyRelu, {{DataType::kUInt8, {2}}}, {DataType::kUInt8, {2}}, leaky(0.1f)),
                   "op 0 (LEAKY_RELU): input type UINT8 is not supported; supported: FLOAT32, INT8, INT16");
  EXPECT_RUN_ERROR(make_op(OpKind::kLeakyRelu, {{DataType::kInt8, {2}, per_tensor(1, 0)}},
                           {DataType::kInt16, {2}, per_tensor(1, 0)}, leaky(0.1f)),
                   "op 0 (LEAKY_RELU): output type INT16 with INT8 input is not supported");
  EXPECT_RUN_ERROR(make_op(OpKind::kLeakyRelu, {{DataType::kInt8, {2}}}, {DataType::kInt8, {2}}, leaky(0.1f)),
                   "op 0 (LEAKY_RELU): input (INT8) has no quantization parameters");
  EXPECT_RUN_ERROR(make_op(OpKind::kLeakyRelu, {{DataType::kFloat32, {2}}}, {DataType::kFloat32, {3}}, leaky(0.1f)),
                   "op 0 (LEAKY_RELU): input has 2 elements but output has 3");
}

// ------------------------------------------------------------------ PRELU

TEST(Prelu, FloatBroadcastsAlphaAlongTheChannels) {
  const MathOp m = make_op(OpKind::kPrelu, {{DataType::kFloat32, {1, 2, 3}}, {DataType::kFloat32, {3}}},
                           {DataType::kFloat32, {1, 2, 3}});
  EXPECT_EQ(run<float>(m, concat(bytes_of(std::vector<float>{-1, -2, -4, 1, 0, -8}),
                                 bytes_of(std::vector<float>{0.5f, 0.25f, 2.0f}))),
            (std::vector<float>{-0.5f, -0.5f, -8.0f, 1.0f, 0.0f, -16.0f}));
}

TEST(Prelu, QuantizedMultipliesByTheOffsetAlpha) {
  // Identity multiplier 1; alpha multiplier 0.5 * 0.25 / 0.5 = 0.25 times
  // (x - 0) * (alpha - 1).
  const MathOp m = make_op(OpKind::kPrelu,
                           {{DataType::kInt8, {4}, per_tensor(0.5f, 0)}, {DataType::kInt8, {4}, per_tensor(0.25f, 1)}},
                           {DataType::kInt8, {4}, per_tensor(0.5f, 0)});
  EXPECT_EQ(run<int8_t>(m, concat(bytes_of(std::vector<int8_t>{-8, -3, 5, -128}), bytes_of(std::vector<int8_t>{3, 2, 9, 127}))),
            (std::vector<int8_t>{-4, -1, 5, -128}));
  // INT16 input with INT8 alpha.
  const MathOp wide = make_op(OpKind::kPrelu,
                              {{DataType::kInt16, {3}, per_tensor(1.0f, 0)}, {DataType::kInt8, {1}, per_tensor(0.5f, 0)}},
                              {DataType::kInt16, {3}, per_tensor(1.0f, 0)});
  EXPECT_EQ(run<int16_t>(wide, concat(bytes_of(std::vector<int16_t>{-1000, 1000, -32768}), bytes_of(std::vector<int8_t>{3}))),
            (std::vector<int16_t>{-1500, 1000, -32768}));
}

TEST(Prelu, RejectsMismatchedAlphaAndHighRanks) {
  EXPECT_RUN_ERROR(make_op(OpKind::kPrelu, {{DataType::kFloat32, {2}}, {DataType::kInt8, {2}}}, {DataType::kFloat32, {2}}),
                   "op 0 (PRELU): alpha type INT8 with FLOAT32 input is not supported; alpha must be FLOAT32");
  EXPECT_RUN_ERROR(make_op(OpKind::kPrelu, {{DataType::kFloat32, {1, 1, 1, 1, 2}}, {DataType::kFloat32, {2}}},
                           {DataType::kFloat32, {1, 1, 1, 1, 2}}),
                   "op 0 (PRELU): PRELU supports up to 4 dimensions, got 5");
  EXPECT_RUN_ERROR(make_op(OpKind::kPrelu, {{DataType::kInt32, {2}}, {DataType::kInt32, {2}}}, {DataType::kInt32, {2}}),
                   "op 0 (PRELU): input type INT32 is not supported; supported: FLOAT32, INT8, INT16");
  EXPECT_RUN_ERROR(make_op(OpKind::kPrelu, {{DataType::kFloat32, {2}}}, {DataType::kFloat32, {2}}),
                   "op 0 (PRELU): expected 2 input(s), got 1");
}

// ------------------------------------------------ SQRT, RSQRT, EXP, LOG, POW

TEST(UnaryMath, FloatsFollowTheCLibrary) {
  const auto unary_float = [](OpKind kind, std::vector<float> in) {
    const auto n = static_cast<int32_t>(in.size());
    return run<float>(make_op(kind, {{DataType::kFloat32, {n}}}, {DataType::kFloat32, {n}}), bytes_of(in));
  };
  const auto sqrt = unary_float(OpKind::kSqrt, {4.0f, 2.0f, -1.0f});
  EXPECT_EQ(sqrt[0], 2.0f);
  EXPECT_EQ(sqrt[1], std::sqrt(2.0f));
  EXPECT_TRUE(std::isnan(sqrt[2]));
  EXPECT_EQ(unary_float(OpKind::kRsqrt, {4.0f, 0.0f}), (std::vector<float>{0.5f, kInf}));
  EXPECT_EQ(unary_float(OpKind::kExp, {0.0f, -kInf, 1.0f}), (std::vector<float>{1.0f, 0.0f, std::exp(1.0f)}));
  EXPECT_EQ(unary_float(OpKind::kLog, {1.0f, 0.0f}), (std::vector<float>{0.0f, -kInf}));
}

TEST(Rsqrt, Int8ScalesTheFixedPointInverseRoot) {
  // Input scale 1, output scale 1/64: 64 / sqrt(x - zero point), rounded;
  // 0 gives the type's maximum.
  const MathOp m = make_op(OpKind::kRsqrt, {{DataType::kInt8, {7}, per_tensor(1.0f, 0)}},
                           {DataType::kInt8, {7}, per_tensor(1.0f / 64, 0)});
  EXPECT_EQ(run<int8_t>(m, bytes_of(std::vector<int8_t>{1, 4, 16, 2, 100, 0, 127})),
            (std::vector<int8_t>{64, 32, 16, 45, 6, 127, 6}));
  // Over every positive input, away from ties: the rounded real root.
  std::vector<int8_t> all;
  for (int x = 1; x < 128; ++x) all.push_back(static_cast<int8_t>(x));
  const MathOp every = make_op(OpKind::kRsqrt, {{DataType::kInt8, {127}, per_tensor(1.0f, 0)}},
                               {DataType::kInt8, {127}, per_tensor(1.0f / 64, 0)});
  const auto out = run<int8_t>(every, bytes_of(all));
  for (size_t i = 0; i < all.size(); ++i) {
    const double real = 64.0 / std::sqrt(static_cast<double>(all[i]));
    if (std::abs(real - std::trunc(real) - 0.5) < 0.01) continue;
    EXPECT_EQ(out[i], static_cast<int8_t>(std::round(real))) << "x = " << int{all[i]};
  }
}

TEST(Rsqrt, Int8MultiplierFromTheScalesInFloat) {
  // SetRsqrtOutputMultiplier takes sqrt(input_scale) * output_scale in
  // float: here that float product's multiplier rounds x = -110 to -61,
  // where the same product in double gives -60.
  const MathOp m = make_op(OpKind::kRsqrt, {{DataType::kInt8, {2}, per_tensor(0.00033399454f, -128)}},
                           {DataType::kInt8, {2}, per_tensor(0.191069916f, -128)});
  EXPECT_EQ(run<int8_t>(m, bytes_of(std::vector<int8_t>{-110, -110})), (std::vector<int8_t>{-61, -61}));
}

TEST(Rsqrt, Int16NeedsZeroPointsZero) {
  const MathOp m = make_op(OpKind::kRsqrt, {{DataType::kInt16, {3}, per_tensor(1.0f, 0)}},
                           {DataType::kInt16, {3}, per_tensor(1.0f / 1024, 0)});
  EXPECT_EQ(run<int16_t>(m, bytes_of(std::vector<int16_t>{4, 1024, 0})), (std::vector<int16_t>{512, 32, 32767}));
  EXPECT_RUN_ERROR(make_op(OpKind::kRsqrt, {{DataType::kInt16, {3}, per_tensor(1.0f, 1)}},
                           {DataType::kInt16, {3}, per_tensor(1.0f, 0)}),
                   "op 0 (RSQRT): INT16 input and output must have zero point 0");
}

TEST(UnaryMath, RejectTypesTflmDoesNotRun) {
  for (OpKind kind : {OpKind::kSqrt, OpKind::kExp, OpKind::kLog}) {
    EXPECT_RUN_ERROR(make_op(kind, {{DataType::kInt8, {2}, per_tensor(1, 0)}}, {DataType::kInt8, {2}, per_tensor(1, 0)}),
                     fmt::format("op 0 ({}): input type INT8 is not supported; supported: FLOAT32", builtin_op_name(static_cast<int32_t>(kind))));
  }
  EXPECT_RUN_ERROR(make_op(OpKind::kRsqrt, {{DataType::kInt32, {2}}}, {DataType::kInt32, {2}}),
                   "op 0 (RSQRT): input type INT32 is not supported; supported: FLOAT32, INT8, INT16");
  EXPECT_RUN_ERROR(make_op(OpKind::kExp, {{DataType::kFloat32, {2}}}, {DataType::kInt32, {2}}),
                   "op 0 (EXP): output type INT32 with FLOAT32 input is not supported");
  EXPECT_RUN_ERROR(make_op(OpKind::kSqrt, {{DataType::kFloat32, {2}}, {DataType::kFloat32, {2}}}, {DataType::kFloat32, {2}}),
                   "op 0 (SQRT): expected 1 input(s), got 2");
}

TEST(Pow, FloatAndWrappingInt32) {
  const MathOp f = make_op(OpKind::kPow, {{DataType::kFloat32, {3}}, {DataType::kFloat32, {3}}}, {DataType::kFloat32, {3}});
  EXPECT_EQ(run<float>(f, concat(bytes_of(std::vector<float>{2.0f, 4.0f, -8.0f}), bytes_of(std::vector<float>{3.0f, 0.5f, 0.0f}))),
            (std::vector<float>{8.0f, 2.0f, 1.0f}));
  const MathOp i = make_op(OpKind::kPow, {{DataType::kInt32, {5}}, {DataType::kInt32, {1}}}, {DataType::kInt32, {5}});
  const MathOp e = make_op(OpKind::kPow, {{DataType::kInt32, {4}}, {DataType::kInt32, {4}}}, {DataType::kInt32, {4}});
  EXPECT_EQ(run<int32_t>(i, concat(bytes_of(std::vector<int32_t>{3, -2, 0, 1, -1}), bytes_of(std::vector<int32_t>{3}))),
            (std::vector<int32_t>{27, -8, 0, 1, -1}));
  EXPECT_EQ(run<int32_t>(e, concat(bytes_of(std::vector<int32_t>{2, 7, 3, 2}), bytes_of(std::vector<int32_t>{31, 0, 4, 32}))),
            (std::vector<int32_t>{std::numeric_limits<int32_t>::min(), 1, 81, 0}));
  EXPECT_RUN_ERROR(make_op(OpKind::kPow, {{DataType::kInt8, {2}}, {DataType::kInt8, {2}}}, {DataType::kInt8, {2}}),
                   "op 0 (POW): input type INT8 is not supported; supported: FLOAT32, INT32");
}

// ----------------------------------------------------- SQUARED_DIFFERENCE

TEST(SquaredDifference, FloatAndInt32) {
  const MathOp f = make_op(OpKind::kSquaredDifference, {{DataType::kFloat32, {2}}, {DataType::kFloat32, {1}}},
                           {DataType::kFloat32, {2}});
  EXPECT_EQ(run<float>(f, concat(bytes_of(std::vector<float>{3.0f, -1.5f}), bytes_of(std::vector<float>{5.0f}))),
            (std::vector<float>{4.0f, 42.25f}));
  const MathOp i = make_op(OpKind::kSquaredDifference, {{DataType::kInt32, {2}}, {DataType::kInt32, {2}}},
                           {DataType::kInt32, {2}});
  EXPECT_EQ(run<int32_t>(i, concat(bytes_of(std::vector<int32_t>{-3, 65536}), bytes_of(std::vector<int32_t>{4, 0}))),
            (std::vector<int32_t>{49, 0}));
}

TEST(SquaredDifference, QuantizedRescalesLikeAdd) {
  // INT8: scales 0.5, 0.5 -> 0.25: exactly (a - b)^2 + zero point, saturated.
  const MathOp q8 = make_op(OpKind::kSquaredDifference,
                            {{DataType::kInt8, {3}, per_tensor(0.5f, 0)}, {DataType::kInt8, {3}, per_tensor(0.5f, 0)}},
                            {DataType::kInt8, {3}, per_tensor(0.25f, -3)});
  EXPECT_EQ(run<int8_t>(q8, concat(bytes_of(std::vector<int8_t>{3, -4, -128}), bytes_of(std::vector<int8_t>{5, 6, 127}))),
            (std::vector<int8_t>{1, 97, 127}));
  // INT16 has no left shift: each input is halved and rounded before the
  // difference, so 4 and 1 give (2 - 1)^2 * 4 = 4, not 9.
  const MathOp q16 = make_op(OpKind::kSquaredDifference,
                             {{DataType::kInt16, {2}, per_tensor(1.0f, 0)}, {DataType::kInt16, {2}, per_tensor(1.0f, 0)}},
                             {DataType::kInt16, {2}, per_tensor(1.0f, 0)});
  EXPECT_EQ(run<int16_t>(q16, concat(bytes_of(std::vector<int16_t>{3, 4}), bytes_of(std::vector<int16_t>{5, 1}))),
            (std::vector<int16_t>{4, 4}));
  EXPECT_RUN_ERROR(make_op(OpKind::kSquaredDifference,
                           {{DataType::kInt16, {2}, per_tensor(1.0f, 1)}, {DataType::kInt16, {2}, per_tensor(1.0f, 0)}},
                           {DataType::kInt16, {2}, per_tensor(1.0f, 0)}),
                   "op 0 (SQUARED_DIFFERENCE): INT16 operands must have zero point 0");
  EXPECT_RUN_ERROR(make_op(OpKind::kSquaredDifference, {{DataType::kUInt8, {2}}, {DataType::kUInt8, {2}}}, {DataType::kUInt8, {2}}),
                   "op 0 (SQUARED_DIFFERENCE): input type UINT8 is not supported");
}

// ---------------------------------------------------- FLOOR_DIV, FLOOR_MOD

TEST(FloorDivMod, RoundTowardMinusInfinityAndTakeTheDivisorsSign) {
  const auto ab = concat(bytes_of(std::vector<float>{7, -7, 7, -7, 5.5f, 1}), bytes_of(std::vector<float>{2, 2, -2, -2, 2, 0}));
  const MathOp div = make_op(OpKind::kFloorDiv, {{DataType::kFloat32, {6}}, {DataType::kFloat32, {6}}}, {DataType::kFloat32, {6}});
  EXPECT_EQ(run<float>(div, ab), (std::vector<float>{3, -4, -4, 3, 2, kInf}));
  const MathOp mod = make_op(OpKind::kFloorMod, {{DataType::kFloat32, {6}}, {DataType::kFloat32, {6}}}, {DataType::kFloat32, {6}});
  const auto r = run<float>(mod, ab);
  EXPECT_EQ(std::vector<float>(r.begin(), r.begin() + 5), (std::vector<float>{1, 1, -1, -1, 1.5f}));
  EXPECT_TRUE(std::isnan(r[5]));
  // A [2,1] by [2] broadcast: out[i][j] = floor(a[i] / b[j]).
  const MathOp rows = make_op(OpKind::kFloorDiv, {{DataType::kFloat32, {2, 1}}, {DataType::kFloat32, {2}}}, {DataType::kFloat32, {2, 2}});
  EXPECT_EQ(run<float>(rows, concat(bytes_of(std::vector<float>{9, -9}), bytes_of(std::vector<float>{2, 4}))),
            (std::vector<float>{4, 2, -5, -3}));
  EXPECT_RUN_ERROR(make_op(OpKind::kFloorDiv, {{DataType::kInt32, {2}}, {DataType::kInt32, {2}}}, {DataType::kInt32, {2}}),
                   "op 0 (FLOOR_DIV): input type INT32 is not supported; supported: FLOAT32");
  EXPECT_RUN_ERROR(make_op(OpKind::kFloorMod, {{DataType::kFloat32, {1, 1, 1, 1, 2}}, {DataType::kFloat32, {2}}},
                           {DataType::kFloat32, {1, 1, 1, 1, 2}}),
                   "op 0 (FLOOR_MOD): broadcasting supports up to 4 dimensions, got 5");
}

// -------------------------------------------------------------- SELECT_V2

TEST(SelectV2, BroadcastsConditionXAndY) {
  // condition [2,1], x [1,3], y scalar -> [2,3].
  const MathOp m = make_op(OpKind::kSelectV2,
                           {{DataType::kBool, {2, 1}}, {DataType::kInt16, {1, 3}}, {DataType::kInt16, {}}},
                           {DataType::kInt16, {2, 3}});
  const auto in = concat(concat(std::vector<uint8_t>{1, 0}, bytes_of(std::vector<int16_t>{1, 2, 3})),
                         bytes_of(std::vector<int16_t>{-9}));
  EXPECT_EQ(run<int16_t>(m, in), (std::vector<int16_t>{1, 2, 3, -9, -9, -9}));
  const MathOp same = make_op(OpKind::kSelectV2,
                              {{DataType::kBool, {3}}, {DataType::kFloat32, {3}}, {DataType::kFloat32, {3}}},
                              {DataType::kFloat32, {3}});
  EXPECT_EQ(run<float>(same, concat(concat(std::vector<uint8_t>{0, 1, 1}, bytes_of(std::vector<float>{1, 2, 3})),
                                    bytes_of(std::vector<float>{4, 5, 6}))),
            (std::vector<float>{4, 2, 3}));
}

TEST(SelectV2, RejectsBadConditionsTypesAndShapes) {
  EXPECT_RUN_ERROR(make_op(OpKind::kSelectV2, {{DataType::kInt8, {2}}, {DataType::kInt8, {2}}, {DataType::kInt8, {2}}},
                           {DataType::kInt8, {2}}),
                   "op 0 (SELECT_V2): condition (input 0) type INT8 is not supported; it must be BOOL");
  EXPECT_RUN_ERROR(make_op(OpKind::kSelectV2, {{DataType::kBool, {2}}, {DataType::kInt8, {2}}, {DataType::kInt16, {2}}},
                           {DataType::kInt8, {2}}),
                   "op 0 (SELECT_V2): input 2 type INT16 differs from input 1 type INT8");
  EXPECT_RUN_ERROR(make_op(OpKind::kSelectV2, {{DataType::kBool, {2}}, {DataType::kInt32, {2}}, {DataType::kInt32, {2}}},
                           {DataType::kInt32, {2}}),
                   "op 0 (SELECT_V2): input 1 type INT32 is not supported; supported: FLOAT32, INT8, INT16");
  EXPECT_RUN_ERROR(make_op(OpKind::kSelectV2, {{DataType::kBool, {3}}, {DataType::kInt8, {2}}, {DataType::kInt8, {2}}},
                           {DataType::kInt8, {2}}),
                   "op 0 (SELECT_V2): input shapes 3, 2 and 2 do not broadcast to output shape 2");
  EXPECT_RUN_ERROR(make_op(OpKind::kSelectV2, {{DataType::kBool, {2}}, {DataType::kInt8, {2}}}, {DataType::kInt8, {2}}),
                   "op 0 (SELECT_V2): expected 3 input(s), got 2");
}

// ------------------------------------------------------- ARG_MAX, ARG_MIN

MathOp arg_op(OpKind kind, DataType type, const Shape& in, int32_t axis, const Shape& out,
              DataType out_type = DataType::kInt32) {
  GraphBuilder b("elementwise_math_kernels_test");
  MathOp m;
  m.inputs = {b.add_tensor("input", type, in)};
  const int32_t axis_tensor = b.add_constant_values<int32_t>("axis", DataType::kInt32, {1}, {axis});
  m.output = b.add_tensor("output", out_type, out);
  b.add_op(kind, {m.inputs[0], axis_tensor}, {m.output});
  b.set_inputs(m.inputs);
  b.set_outputs({m.output});
  m.graph = b.finish();
  return m;
}

TEST(ArgMinMax, FirstIndexOfTheExtremeAlongTheAxis) {
  const auto in = bytes_of(std::vector<float>{1, 5, 5, -1, -3, -3});
  EXPECT_EQ(run<int32_t>(arg_op(OpKind::kArgMax, DataType::kFloat32, {2, 3}, 1, {2}), in), (std::vector<int32_t>{1, 0}));
  EXPECT_EQ(run<int32_t>(arg_op(OpKind::kArgMin, DataType::kFloat32, {2, 3}, -1, {2}), in), (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(run<int64_t>(arg_op(OpKind::kArgMax, DataType::kFloat32, {2, 3}, 0, {3}, DataType::kInt64), in),
            (std::vector<int64_t>{0, 0, 0}));
  EXPECT_EQ(run<int32_t>(arg_op(OpKind::kArgMin, DataType::kInt8, {4}, 0, {}), bytes_of(std::vector<int8_t>{3, -128, 7, -128})),
            (std::vector<int32_t>{1}));
  EXPECT_EQ(run<int32_t>(arg_op(OpKind::kArgMax, DataType::kUInt8, {1, 3}, 1, {1}), std::vector<uint8_t>{200, 7, 255}),
            (std::vector<int32_t>{2}));
  // A NaN is never greater: it is kept only when it comes first.
  EXPECT_EQ(run<int32_t>(arg_op(OpKind::kArgMax, DataType::kFloat32, {2, 2}, 1, {2}),
                         bytes_of(std::vector<float>{kNaN, 1, 1, kNaN})),
            (std::vector<int32_t>{0, 0}));
}

TEST(ArgMinMax, RejectsBadAxesShapesAndTypes) {
  EXPECT_RUN_ERROR(arg_op(OpKind::kArgMax, DataType::kFloat32, {2, 3}, 2, {2}), "op 0 (ARG_MAX): axis 2 is outside input rank 2");
  EXPECT_RUN_ERROR(arg_op(OpKind::kArgMax, DataType::kFloat32, {2, 3}, 1, {3}),
                   "op 0 (ARG_MAX): output shape 3 is not the input shape 2x3 without axis 1");
  EXPECT_RUN_ERROR(arg_op(OpKind::kArgMin, DataType::kInt16, {2}, 0, {}),
                   "op 0 (ARG_MIN): input type INT16 is not supported; supported: FLOAT32, INT8, UINT8");
  EXPECT_RUN_ERROR(arg_op(OpKind::kArgMin, DataType::kInt8, {2}, 0, {}, DataType::kInt16),
                   "op 0 (ARG_MIN): output type INT16 is not supported; supported: INT32, INT64");
  EXPECT_RUN_ERROR(make_op(OpKind::kArgMax, {{DataType::kFloat32, {2}}, {DataType::kInt32, {1}}}, {DataType::kInt32, {}}),
                   "op 0 (ARG_MAX): axis (input 1) must be constant");
}

// ------------------------------------------------------- L2_NORMALIZATION

TEST(L2Normalization, FloatDividesEachRowByItsNorm) {
  const MathOp m = make_op(OpKind::kL2Normalization, {{DataType::kFloat32, {2, 2}}}, {DataType::kFloat32, {2, 2}},
                           with_activation(Activation::kNone));
  EXPECT_EQ(run<float>(m, bytes_of(std::vector<float>{3, 4, 0, 0})), (std::vector<float>{0.6f, 0.8f, 0.0f, 0.0f}));
}

TEST(L2Normalization, Int8OutputsInUnitsOf128th) {
  // Row (3, 4) - zero point 1 ... the row's norm is 5: 128 * x / 5, rounded;
  // a zero row stays 0.
  const MathOp m = make_op(OpKind::kL2Normalization, {{DataType::kInt8, {2, 2}, per_tensor(0.1f, 1)}},
                           {DataType::kInt8, {2, 2}, per_tensor(1.0f / 128, 0)}, with_activation(Activation::kNone));
  EXPECT_EQ(run<int8_t>(m, bytes_of(std::vector<int8_t>{4, -3, 1, 1})), (std::vector<int8_t>{77, -102, 0, 0}));
}

TEST(L2Normalization, RejectsActivationsRanksAndTypes) {
  EXPECT_RUN_ERROR(make_op(OpKind::kL2Normalization, {{DataType::kFloat32, {2}}}, {DataType::kFloat32, {2}},
                           with_activation(Activation::kRelu)),
                   "op 0 (L2_NORMALIZATION): a fused activation is not supported");
  EXPECT_RUN_ERROR(make_op(OpKind::kL2Normalization, {{DataType::kFloat32, {1, 1, 1, 1, 2}}}, {DataType::kFloat32, {1, 1, 1, 1, 2}}),
                   "op 0 (L2_NORMALIZATION): input must have 1 to 4 dimensions, got 5");
  EXPECT_RUN_ERROR(make_op(OpKind::kL2Normalization, {{DataType::kInt16, {2}, per_tensor(1, 0)}}, {DataType::kInt16, {2}, per_tensor(1, 0)}),
                   "op 0 (L2_NORMALIZATION): input type INT16 is not supported; supported: FLOAT32, INT8");
}

// ---------------------------------------------- safe overlap, every new op

// Random shapes for the unary and one-row-at-a-time ops: their O_s is exact.
TEST(UnaryMathOverlap, RandomShapesOverlapExactly) {
  std::mt19937 rng(31);
  std::uniform_int_distribution<int32_t> dim(1, 5), rank(1, 4), pick(0, 8);
  for (int trial = 0; trial < 240; ++trial) {
    Shape shape(static_cast<size_t>(rank(rng)));
    for (auto& d : shape) d = dim(rng);
    MathOp m;
    switch (pick(rng)) {
      case 0: m = make_op(OpKind::kLeakyRelu, {{DataType::kInt8, shape, per_tensor(0.5f, 3)}}, {DataType::kInt8, shape, per_tensor(0.25f, -1)}, leaky(0.1f)); break;
      case 1: m = make_op(OpKind::kLeakyRelu, {{DataType::kInt16, shape, per_tensor(0.5f, 0)}}, {DataType::kInt16, shape, per_tensor(0.5f, 0)}, leaky(0.1f)); break;
      case 2: m = make_op(OpKind::kRsqrt, {{DataType::kInt8, shape, per_tensor(0.5f, -128)}}, {DataType::kInt8, shape, per_tensor(0.05f, 0)}); break;
      case 3: m = make_op(OpKind::kExp, {{DataType::kFloat32, shape}}, {DataType::kFloat32, shape}); break;
      case 4: m = make_op(OpKind::kSqrt, {{DataType::kFloat32, shape}}, {DataType::kFloat32, shape}); break;
      case 5: m = make_op(OpKind::kL2Normalization, {{DataType::kInt8, shape, per_tensor(0.5f, 2)}}, {DataType::kInt8, shape, per_tensor(1.0f / 128, 0)}, with_activation(Activation::kNone)); break;
      case 6: m = make_op(OpKind::kL2Normalization, {{DataType::kFloat32, shape}}, {DataType::kFloat32, shape}, with_activation(Activation::kNone)); break;
      case 7: {
        std::uniform_int_distribution<int32_t> axis(0, static_cast<int32_t>(shape.size()) - 1);
        const int32_t a = axis(rng);
        Shape out = shape;
        out.erase(out.begin() + a);
        m = arg_op(trial % 2 ? OpKind::kArgMax : OpKind::kArgMin, DataType::kInt8, shape, a, out,
                   trial % 3 ? DataType::kInt32 : DataType::kInt64);
        break;
      }
      default: m = make_op(OpKind::kLog, {{DataType::kFloat32, shape}}, {DataType::kFloat32, shape}); break;
    }
    expect_exact_overlap(m, 0, random_bytes(rng, input_bytes(m)));
  }
}

// Random broadcasts of the binary and ternary ops: every input's O_s is exact.
TEST(BroadcastMathOverlap, RandomShapesOverlapExactly) {
  std::mt19937 rng(57);
  std::uniform_int_distribution<int32_t> dim(1, 4), rank(1, 4), coin(0, 2), pick(0, 5);
  for (int trial = 0; trial < 240; ++trial) {
    Shape out(static_cast<size_t>(rank(rng)));
    for (auto& d : out) d = dim(rng);
    // Each dimension broadcast (extent 1) in at most one of the inputs.
    Shape a = out, b = out, c = out;
    for (size_t d = 0; d < out.size(); ++d) {
      const int32_t which = coin(rng);
      (which == 0 ? a : which == 1 ? b : c)[d] = 1;
    }
    MathOp m;
    switch (pick(rng)) {
      case 0: m = make_op(OpKind::kPrelu, {{DataType::kInt8, a, per_tensor(0.5f, 1)}, {DataType::kInt8, b, per_tensor(0.1f, 0)}}, {DataType::kInt8, out, per_tensor(0.5f, 0)}); break;
      case 1: m = make_op(OpKind::kSquaredDifference, {{DataType::kInt8, a, per_tensor(0.5f, 1)}, {DataType::kInt8, b, per_tensor(0.25f, 0)}}, {DataType::kInt8, out, per_tensor(2.0f, -5)}); break;
      case 2: m = make_op(OpKind::kFloorDiv, {{DataType::kFloat32, a}, {DataType::kFloat32, b}}, {DataType::kFloat32, out}); break;
      case 3: m = make_op(OpKind::kFloorMod, {{DataType::kFloat32, a}, {DataType::kFloat32, b}}, {DataType::kFloat32, out}); break;
      case 4: m = make_op(OpKind::kPow, {{DataType::kInt32, a}, {DataType::kInt32, b}}, {DataType::kInt32, out}); break;
      default: m = make_op(OpKind::kSelectV2, {{DataType::kBool, c}, {DataType::kInt8, a}, {DataType::kInt8, b}}, {DataType::kInt8, out}); break;
    }
    const auto bytes = random_bytes(rng, input_bytes(m));
    for (size_t i = 0; i < m.inputs.size(); ++i) expect_exact_overlap(m, i, bytes);
  }
}

// ------------------------------------------------------------------- CLI

TEST(ElementwiseMathCli, AnUnsupportedCastIsOneLineExitTwo) {
  GraphBuilder b("cast int64");
  const int32_t in = b.add_tensor("in", DataType::kInt64, {4});
  const int32_t out = b.add_tensor("out", DataType::kInt32, {4});
  b.add_op(OpKind::kCast, {in}, {out});
  b.set_inputs({in});
  b.set_outputs({out});
  const std::vector<uint8_t> bytes = write_tflite(b.finish());
  const std::string file =
      (std::filesystem::temp_directory_path() / fmt::format("dmo_math_{}_cast.tflite", ::getpid())).string();
  std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                              static_cast<std::streamsize>(bytes.size()));
  const test::CommandResult r = test::run_dmo({"run", file});
  EXPECT_EQ(r.exit_status, 2) << r.out << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(file + ": op 0 (CAST): input type INT64 is not supported"), std::string::npos) << r.err;
  std::filesystem::remove(file);
}

}  // namespace
}  // namespace dmo

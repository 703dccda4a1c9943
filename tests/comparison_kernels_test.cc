// Comparison kernels (EQUAL, NOT_EQUAL, LESS, LESS_EQUAL, GREATER,
// GREATER_EQUAL): hand-computed results for every supported type, with
// broadcasting and the quantized inputs' rescaling, the errors for what they
// do not run, and the safe overlap their loop order gives, checked by running
// the op overlapped (also over random broadcast shapes).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "dmo/error.h"
#include "dmo/runtime/interpreter.h"
#include "dmo/zoo/graph_builder.h"
#include "single_op_overlap.h"
#include "test_support.h"

namespace dmo {
namespace {

using test::bytes_of;
using test::per_tensor;
using test::values_from;

struct Operand {
  DataType type = DataType::kFloat32;
  Shape shape;
  Quantization quant = {};
};

// A one-op graph: two graph inputs compared into a BOOL (or given) output.
test::OneOp compare(OpKind kind, const Operand& a, const Operand& b, const Shape& output_shape,
                    DataType output_type = DataType::kBool) {
  GraphBuilder builder("comparison_kernels_test");
  const int32_t x = builder.add_tensor("x", a.type, a.shape, a.quant);
  const int32_t y = builder.add_tensor("y", b.type, b.shape, b.quant);
  const int32_t out = builder.add_tensor("out", output_type, output_shape);
  builder.add_op(kind, {x, y}, {out});
  builder.set_inputs({x, y});
  builder.set_outputs({out});
  test::OneOp m{builder.finish(), x, out};
  return m;
}

std::vector<uint8_t> concat(std::vector<uint8_t> a, const std::vector<uint8_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// The output bytes (0 or 1 per element), computed directly and with the
// checking policy, which must agree and find no clobber.
std::vector<uint8_t> run(const test::OneOp& m, const std::vector<uint8_t>& input) {
  Interpreter direct(m.graph, unshared_placement(m.graph.main()));
  direct.set_inputs(input);
  direct.run();
  Interpreter checked(m.graph, unshared_placement(m.graph.main()));
  checked.set_inputs(input);
  EXPECT_FALSE(checked.run_checked().has_value());
  EXPECT_EQ(direct.tensor_contents(m.output), checked.tensor_contents(m.output));
  return direct.tensor_contents(m.output);
}

std::string run_error(const test::OneOp& m) {
  return test::error_of([&] {
    Interpreter interpreter(m.graph, unshared_placement(m.graph.main()));
    interpreter.run();
  });
}

#define EXPECT_RUN_ERROR(model, text)                                           \
  do {                                                                          \
    const std::string message = run_error(model);                               \
    EXPECT_NE(message.find(text), std::string::npos) << "message: " << message; \
  } while (0)

const std::vector<OpKind> kAllComparisons = {OpKind::kEqual,     OpKind::kNotEqual, OpKind::kLess,
                                             OpKind::kLessEqual, OpKind::kGreater,  OpKind::kGreaterEqual};

// Per comparison, the result of comparing (lhs, rhs) for lhs < rhs, lhs ==
// rhs and lhs > rhs.
std::vector<uint8_t> expected_for(OpKind kind, const std::vector<int>& order) {
  std::vector<uint8_t> out;
  for (int o : order) {
    switch (kind) {
      case OpKind::kEqual: out.push_back(o == 0); break;
      case OpKind::kNotEqual: out.push_back(o != 0); break;
      case OpKind::kLess: out.push_back(o < 0); break;
      case OpKind::kLessEqual: out.push_back(o <= 0); break;
      case OpKind::kGreater: out.push_back(o > 0); break;
      default: out.push_back(o >= 0); break;
    }
  }
  return out;
}

TEST(Comparisons, FloatSameShapeEveryRelation) {
  const std::vector<float> a = {-1.5f, 2.0f, 3.0f, 0.0f};
  const std::vector<float> b = {2.5f, 2.0f, -3.0f, -0.0f};
  const std::vector<int> order = {-1, 0, 1, 0};  // -0.0 == 0.0
  for (OpKind kind : kAllComparisons) {
    SCOPED_TRACE(builtin_op_name(static_cast<int32_t>(kind)));
    auto m = compare(kind, {DataType::kFloat32, {4}}, {DataType::kFloat32, {4}}, {4});
    EXPECT_EQ(run(m, concat(bytes_of(a), bytes_of(b))), expected_for(kind, order));
  }
}

TEST(Comparisons, Int32BroadcastsLikeTflm) {
  // [2,3] against [3]: each row compared with the same three values.
  const std::vector<int32_t> a = {1, 5, 9, 4, 5, 6};
  const std::vector<int32_t> b = {4, 5, 6};
  const std::vector<int> order = {-1, 0, 1, 0, 0, 0};
  for (OpKind kind : kAllComparisons) {
    SCOPED_TRACE(builtin_op_name(static_cast<int32_t>(kind)));
    auto m = compare(kind, {DataType::kInt32, {2, 3}}, {DataType::kInt32, {3}}, {2, 3});
    EXPECT_EQ(run(m, concat(bytes_of(a), bytes_of(b))), expected_for(kind, order));
  }
}

TEST(Comparisons, Int64ColumnBroadcast) {
  // [2,1] against [1,3]: an outer comparison.
  const std::vector<int64_t> a = {int64_t{1} << 40, -7};
  const std::vector<int64_t> b = {-7, int64_t{1} << 40, 0};
  const std::vector<int> order = {1, 0, 1, 0, -1, -1};
  auto m = compare(OpKind::kGreaterEqual, {DataType::kInt64, {2, 1}}, {DataType::kInt64, {1, 3}}, {2, 3});
  EXPECT_EQ(run(m, concat(bytes_of(a), bytes_of(b))), expected_for(OpKind::kGreaterEqual, order));
  auto less = compare(OpKind::kLess, {DataType::kInt64, {2, 1}}, {DataType::kInt64, {1, 3}}, {2, 3});
  EXPECT_EQ(run(less, concat(bytes_of(a), bytes_of(b))), expected_for(OpKind::kLess, order));
}

TEST(Comparisons, BoolEqualityOnly) {
  const std::vector<uint8_t> a = {0, 1, 1, 0}, b = {0, 0, 1, 1};
  auto eq = compare(OpKind::kEqual, {DataType::kBool, {4}}, {DataType::kBool, {4}}, {4});
  EXPECT_EQ(run(eq, concat(a, b)), (std::vector<uint8_t>{1, 0, 1, 0}));
  auto ne = compare(OpKind::kNotEqual, {DataType::kBool, {4}}, {DataType::kBool, {4}}, {4});
  EXPECT_EQ(run(ne, concat(a, b)), (std::vector<uint8_t>{0, 1, 0, 1}));
  auto less = compare(OpKind::kLess, {DataType::kBool, {4}}, {DataType::kBool, {4}}, {4});
  EXPECT_RUN_ERROR(less, "op 0 (LESS): input type BOOL is not supported");
}

// Quantized inputs compare their real values, each rescaled by its own
// scale and zero point: 2.0 is q = 4 at scale 0.5 and q = 18 at scale 0.25
// with zero point 10.
TEST(Comparisons, Int8ComparesRescaledValues) {
  const std::vector<int8_t> a = {4, 4, 4, -128};
  const std::vector<int8_t> b = {18, 17, 19, -128};  // 2.0, 1.75, 2.25, -34.5
  const std::vector<int> order = {0, 1, -1, -1};     // -64 < -34.5
  for (OpKind kind : kAllComparisons) {
    SCOPED_TRACE(builtin_op_name(static_cast<int32_t>(kind)));
    auto m = compare(kind, {DataType::kInt8, {4}, per_tensor(0.5f, 0)}, {DataType::kInt8, {4}, per_tensor(0.25f, 10)},
                     {4});
    EXPECT_EQ(run(m, concat(bytes_of(a), bytes_of(b))), expected_for(kind, order));
  }
}

// Rescaled values are rounded: at scale 2^-9 a code q becomes (q << 8) / 2^9
// = q / 2 rounded half away from zero, so 1 and 2 (0.5 -> 1 and 1) and -1
// and -2 compare equal, 5 and 4 (2.5 -> 3 and 2) do not, as TFLM's
// MultiplyByQuantizedMultiplierSmallerThanOneExp rounds.
TEST(Comparisons, Int8RescalingRoundsLikeTflm) {
  const Quantization q = per_tensor(1.0f / 512.0f, 0);
  auto m = compare(OpKind::kEqual, {DataType::kInt8, {3}, q}, {DataType::kInt8, {3}, q}, {3});
  const std::vector<int8_t> a = {1, -1, 5}, b = {2, -2, 4};
  EXPECT_EQ(run(m, concat(bytes_of(a), bytes_of(b))), (std::vector<uint8_t>{1, 1, 0}));
}

TEST(Comparisons, UInt8AndBroadcastScalar) {
  // uint8 with zero point 128 against a scalar threshold.
  const std::vector<uint8_t> a = {100, 128, 140, 200};  // -3.5, 0, 1.5, 9 at scale 0.125
  const std::vector<uint8_t> b = {130};                 // 1.5 at scale 0.75, zero point 128
  auto m = compare(OpKind::kLessEqual, {DataType::kUInt8, {1, 4}, per_tensor(0.125f, 128)},
                   {DataType::kUInt8, {1}, per_tensor(0.75f, 128)}, {1, 4});
  EXPECT_EQ(run(m, concat(a, b)), (std::vector<uint8_t>{1, 1, 1, 0}));
}

TEST(Comparisons, Int16GreaterOnly) {
  const std::vector<int16_t> a = {1000, -5, 7}, b = {999, -5, 8};
  auto greater = compare(OpKind::kGreater, {DataType::kInt16, {3}, per_tensor(0.5f, 0)},
                         {DataType::kInt16, {3}, per_tensor(0.5f, 0)}, {3});
  EXPECT_EQ(run(greater, concat(bytes_of(a), bytes_of(b))), (std::vector<uint8_t>{1, 0, 0}));
  auto less = compare(OpKind::kLess, {DataType::kInt16, {3}, per_tensor(0.5f, 0)},
                      {DataType::kInt16, {3}, per_tensor(0.5f, 0)}, {3});
  EXPECT_RUN_ERROR(less, "op 0 (LESS): input type INT16 is not supported");
}

TEST(Comparisons, RefusesWhatTflmCannotRun) {
  EXPECT_RUN_ERROR(compare(OpKind::kEqual, {DataType::kFloat32, {2}}, {DataType::kFloat32, {2}}, {2},
                           DataType::kInt8),
                   "op 0 (EQUAL): output type INT8 is not supported; the output must be BOOL");
  EXPECT_RUN_ERROR(compare(OpKind::kLess, {DataType::kFloat32, {2}}, {DataType::kInt32, {2}}, {2}),
                   "op 0 (LESS): input 1 type INT32 differs from input 0 type FLOAT32");
  EXPECT_RUN_ERROR(compare(OpKind::kGreater, {DataType::kFloat32, {2, 3}}, {DataType::kFloat32, {3, 2}}, {2, 3}),
                   "op 0 (GREATER): input shapes 2x3 and 3x2 do not broadcast");
  EXPECT_RUN_ERROR(compare(OpKind::kEqual, {DataType::kInt32, {1, 2, 1, 2, 2}}, {DataType::kInt32, {2}},
                           {1, 2, 1, 2, 2}),
                   "op 0 (EQUAL): broadcasting compares up to 4 dimensions");
  EXPECT_RUN_ERROR(compare(OpKind::kEqual, {DataType::kInt8, {2}, per_tensor(1.5f, 0)},
                           {DataType::kInt8, {2}, per_tensor(0.5f, 0)}, {2}),
                   "op 0 (EQUAL): input 0 has scale 1.5; TFLM's comparisons need a scale in (0, 1)");
  EXPECT_RUN_ERROR(compare(OpKind::kEqual, {DataType::kInt8, {2}}, {DataType::kInt8, {2}}, {2}),
                   "op 0 (EQUAL): input 0 (INT8) has no quantization parameters");
  // Same shapes compare in one flat loop at any rank.
  auto flat5d = compare(OpKind::kEqual, {DataType::kInt32, {1, 1, 1, 1, 2}}, {DataType::kInt32, {1, 1, 1, 1, 2}},
                        {1, 1, 1, 1, 2});
  EXPECT_EQ(run(flat5d, bytes_of(std::vector<int32_t>{3, 4, 3, 5})), (std::vector<uint8_t>{1, 0}));
}

// A broadcast int32 input of 8 bytes under a 6-byte BOOL output: a[0] is read
// for outputs 0..2, a[1] for 3..5, so once output byte 1 is written a[0]
// must still be intact: O_s = 6 - 2 = 4 bytes.
TEST(Comparisons, SafeOverlapFollowsTheBroadcastReads) {
  auto m = compare(OpKind::kLess, {DataType::kInt32, {2, 1}}, {DataType::kInt32, {1, 3}}, {2, 3});
  const int64_t os = test::addresses(m).safe_overlap();
  EXPECT_EQ(os, 4);
  const auto input = concat(bytes_of(std::vector<int32_t>{5, -2}), bytes_of(std::vector<int32_t>{4, 5, 6}));
  EXPECT_FALSE(test::clobbers_at_overlap(m, os, input));
  EXPECT_TRUE(test::clobbers_at_overlap(m, os + 1, input));
}

// Over random broadcast shapes and types: the O_s of the address-only policy
// is exactly what the checking policy tolerates.
TEST(Comparisons, SafeOverlapPropertyOverRandomShapes) {
  std::mt19937 rng(20261201);
  const std::vector<DataType> types = {DataType::kFloat32, DataType::kInt32, DataType::kInt64, DataType::kInt8};
  int beyond_checked = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const auto rank = static_cast<size_t>(1 + rng() % 4);
    Shape out(rank), a(rank), b(rank);
    for (size_t d = 0; d < rank; ++d) {
      out[d] = static_cast<int32_t>(1 + rng() % 4);
      a[d] = rng() % 3 == 0 ? 1 : out[d];
      b[d] = rng() % 3 == 0 ? 1 : out[d];
      out[d] = std::max(a[d], b[d]);  // what the two broadcast to
    }
    const DataType type = types[rng() % types.size()];
    const Quantization quant = type == DataType::kInt8 ? per_tensor(0.5f, 3) : Quantization{};
    const OpKind kind = kAllComparisons[rng() % kAllComparisons.size()];
    SCOPED_TRACE(fmt::format("{} {} {} vs {}", builtin_op_name(static_cast<int32_t>(kind)), data_type_name(type),
                             shape_to_string(a), shape_to_string(b)));
    auto m = compare(kind, {type, a, quant}, {type, b, quant}, out);
    const int64_t input_bytes = test::bytes_of_tensor(m, 0) + test::bytes_of_tensor(m, 1);
    std::vector<uint8_t> input(static_cast<size_t>(input_bytes));
    for (auto& byte : input) byte = static_cast<uint8_t>(rng() % 4);  // small values: many equal pairs
    const int64_t os = test::addresses(m).safe_overlap();
    EXPECT_FALSE(test::clobbers_at_overlap(m, os, input)) << "O_s " << os;
    if (os < test::bytes_of_tensor(m, m.output)) {
      EXPECT_TRUE(test::clobbers_at_overlap(m, os + 1, input)) << "O_s " << os;
      ++beyond_checked;
    }
  }
  EXPECT_GT(beyond_checked, 5);
}

}  // namespace
}  // namespace dmo

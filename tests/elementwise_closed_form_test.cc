// The closed forms of the comparisons and EXPAND_DIMS are exact: on random
// shapes and element types they equal the address-only policy's value, and
// the op runs clobber-free with that overlap (the whole output: one byte
// more is no longer an overlap of the two).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <random>
#include <string>
#include <vector>

#include "dmo/overlap/analytic_overlap.h"
#include "dmo/runtime/input_pattern.h"
#include "dmo/runtime/interpreter.h"
#include "dmo/zoo/graph_builder.h"
#include "single_op_overlap.h"
#include "test_support.h"

namespace dmo {
namespace {

using test::random_values;

Shape random_shape(std::mt19937& rng) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Shape shape(static_cast<size_t>(pick(1, 4)));
  for (auto& d : shape) d = pick(1, 5);
  return shape;
}

void expect_exact(const test::OneOp& op, const std::string& description) {
  SCOPED_TRACE(description);
  const Subgraph& sg = op.graph.main();
  const AnalyticOverlap analytic = analytic_safe_overlap(sg, 0, op.input, op.output);
  ASSERT_TRUE(analytic.bytes.has_value()) << analytic.rule;
  EXPECT_EQ(*analytic.bytes, algorithmic_safe_overlap(op.graph, 0, op.input, op.output));
  EXPECT_EQ(*analytic.bytes, sg.tensors[static_cast<size_t>(op.output)].byte_size);
  EXPECT_FALSE(test::clobbers_at_overlap(op, *analytic.bytes, pattern_input(sg, 5)));
}

TEST(ComparisonClosedForm, EqualsTheAddressOnlyPolicy) {
  std::mt19937 rng(20261203);
  const OpKind kinds[] = {OpKind::kEqual, OpKind::kNotEqual, OpKind::kLess,
                          OpKind::kLessEqual, OpKind::kGreater, OpKind::kGreaterEqual};
  int checked = 0;
  for (OpKind kind : kinds) {
    for (DataType type : {DataType::kFloat32, DataType::kInt32, DataType::kInt8}) {
      for (int trial = 0; trial < 10; ++trial) {
        const Shape shape = random_shape(rng);
        GraphBuilder b("random comparison");
        const Quantization q = type == DataType::kInt8 ? test::per_tensor(0.05f, 2) : Quantization{};
        test::OneOp op;
        op.input = b.add_tensor("input", type, shape, q);
        int64_t n = 1;
        for (int64_t d : shape) n *= d;
        const int32_t other = type == DataType::kFloat32
                                  ? b.add_constant_values<float>("other", type, shape, random_values<float>(rng, n, -3, 3))
                              : type == DataType::kInt32
                                  ? b.add_constant_values<int32_t>("other", type, shape,
                                                                   random_values<int32_t>(rng, n, -50, 50))
                                  : b.add_constant_values<int8_t>("other", type, shape,
                                                                  random_values<int8_t>(rng, n, -50, 50), q);
        op.output = b.add_tensor("output", DataType::kBool, shape);
        const bool first = trial % 2 == 0;
        b.add_op(kind, first ? std::vector<int32_t>{op.input, other} : std::vector<int32_t>{other, op.input},
                 {op.output});
        b.set_inputs({op.input});
        b.set_outputs({op.output});
        op.graph = b.finish();
        expect_exact(op, fmt::format("kind {} type {} trial {}", static_cast<int>(kind), data_type_name(type), trial));
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 180);
}

TEST(ExpandDimsClosedForm, EqualsTheAddressOnlyPolicy) {
  std::mt19937 rng(20261204);
  int checked = 0;
  for (DataType type : {DataType::kFloat32, DataType::kInt16, DataType::kInt8}) {
    for (int trial = 0; trial < 20; ++trial) {
      const Shape in = random_shape(rng);
      const int32_t axis = std::uniform_int_distribution<int32_t>(0, static_cast<int32_t>(in.size()))(rng);
      Shape out = in;
      out.insert(out.begin() + axis, 1);
      GraphBuilder b("random expand dims");
      test::OneOp op;
      op.input = b.add_tensor("input", type, in);
      const int32_t axis_t = b.add_constant_values<int32_t>("axis", DataType::kInt32, {}, {axis});
      op.output = b.add_tensor("output", type, out);
      b.add_op(OpKind::kExpandDims, {op.input, axis_t}, {op.output});
      b.set_inputs({op.input});
      b.set_outputs({op.output});
      op.graph = b.finish();
      expect_exact(op, fmt::format("type {} axis {} trial {}", data_type_name(type), axis, trial));
      ++checked;
    }
  }
  EXPECT_EQ(checked, 60);
}

}  // namespace
}  // namespace dmo

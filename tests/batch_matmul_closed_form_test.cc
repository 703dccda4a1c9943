// BATCH_MATMUL's closed-form O_s is exact: on random products (batches,
// rows, depth, columns, adj_x, adj_y, a broadcast right operand) it equals
// the address-only policy's value for either operand, the product runs
// clobber-free with that overlap, and one byte more clobbers.
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

struct Product {
  test::OneOp op;
  std::string description;
};

// Float32 left [B, A, K] (or [B, K, A] with adj_x) times right [B or 1, K, C]
// (or [.., C, K] with adj_y); the operand under test is the graph's input,
// the other a constant.
Product random_product(std::mt19937& rng, bool test_left) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const int32_t batches = pick(1, 3), rows = pick(1, 6), depth = pick(1, 6), columns = pick(1, 6);
  BatchMatMulParams p;
  p.adj_x = pick(0, 2) == 0;
  p.adj_y = pick(0, 2) == 0;
  const int32_t right_batches = pick(0, 1) == 0 ? 1 : batches;
  const Shape left_shape = p.adj_x ? Shape{batches, depth, rows} : Shape{batches, rows, depth};
  const Shape right_shape = p.adj_y ? Shape{right_batches, columns, depth} : Shape{right_batches, depth, columns};
  const DataType type = DataType::kFloat32;
  GraphBuilder b("random batch matmul");
  auto elements = [](const Shape& s) { return s[0] * s[1] * s[2]; };
  int32_t left = -1, right = -1;
  if (test_left) {
    left = b.add_tensor("left", type, left_shape);
    right = b.add_constant_values<float>("right", type, right_shape,
                                         random_values<float>(rng, elements(right_shape), -3, 3));
  } else {
    left = b.add_constant_values<float>("left", type, left_shape, random_values<float>(rng, elements(left_shape), -3, 3));
    right = b.add_tensor("right", type, right_shape);
  }
  const int32_t output = b.add_tensor("output", type, {batches, rows, columns});
  b.add_op(OpKind::kBatchMatMul, {left, right}, {output}, p);
  b.set_inputs({test_left ? left : right});
  b.set_outputs({output});
  Product product;
  product.op.graph = b.finish();
  product.op.input = test_left ? left : right;
  product.op.output = output;
  product.description = fmt::format("{} operand, batches {} (right {}) rows {} depth {} columns {}{}{}",
                                    test_left ? "left" : "right", batches, right_batches, rows, depth, columns,
                                    p.adj_x ? " adj_x" : "", p.adj_y ? " adj_y" : "");
  return product;
}

TEST(BatchMatMulClosedForm, EqualsTheAddressOnlyPolicyAndClobbersOneByteFurther) {
  std::mt19937 rng(20261203);
  int checked = 0, rows_overlap = 0;
  for (bool test_left : {true, false}) {
    for (int trial = 0; trial < 150; ++trial) {
      const Product l = random_product(rng, test_left);
      SCOPED_TRACE(l.description);
      const Subgraph& sg = l.op.graph.main();
      const Tensor& out = sg.tensors[static_cast<size_t>(l.op.output)];
      const AnalyticOverlap analytic = analytic_safe_overlap(sg, 0, l.op.input, l.op.output);
      const auto& p = std::get<BatchMatMulParams>(sg.ops[0].params);
      if (!test_left && p.adj_y) {
        EXPECT_FALSE(analytic.bytes.has_value());
        continue;
      }
      ASSERT_TRUE(analytic.bytes.has_value()) << analytic.rule;
      EXPECT_EQ(*analytic.bytes, algorithmic_safe_overlap(l.op.graph, 0, l.op.input, l.op.output));
      const std::vector<uint8_t> input = pattern_input(sg, 3);
      EXPECT_FALSE(test::clobbers_at_overlap(l.op, *analytic.bytes, input));
      if (*analytic.bytes < out.byte_size) {
        EXPECT_TRUE(test::clobbers_at_overlap(l.op, *analytic.bytes + 1, input));
      }
      rows_overlap += test_left && !p.adj_x && *analytic.bytes > 4 && *analytic.bytes < out.byte_size;
      ++checked;
    }
  }
  EXPECT_GT(checked, 200);
  EXPECT_GT(rows_overlap, 20);
}

}  // namespace
}  // namespace dmo

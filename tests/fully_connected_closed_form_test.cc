// FULLY_CONNECTED's closed-form O_s is exact: on random layers of every
// element type the kernel runs (batches, depths, units, per-tensor and
// per-channel weights) it equals the address-only policy's value and an
// independent replay of the loop order written here, the layer runs
// clobber-free with that overlap, and one byte more clobbers.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <random>
#include <string>
#include <vector>

#include "dmo/overlap/analytic_overlap.h"
#include "dmo/runtime/input_pattern.h"
#include "dmo/zoo/graph_builder.h"
#include "single_op_overlap.h"
#include "test_support.h"

namespace dmo {
namespace {

struct Layer {
  test::OneOp op;
  int64_t batches = 0, depth = 0, units = 0;
  std::string description;
};

using test::random_values;

Layer random_fully_connected(std::mt19937& rng, DataType type) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Layer l;
  l.batches = pick(1, 5);
  l.depth = pick(1, 9);
  l.units = pick(1, 9);
  const int32_t b_ = static_cast<int32_t>(l.batches), d = static_cast<int32_t>(l.depth),
                u = static_cast<int32_t>(l.units);
  const bool keep_num_dims = pick(0, 1) == 1;
  const Shape in_shape = keep_num_dims ? Shape{1, b_, d} : Shape{b_, d};
  const Shape out_shape = keep_num_dims ? Shape{1, b_, u} : Shape{b_, u};
  const bool with_bias = pick(0, 3) != 0;
  GraphBuilder b("random fully connected");
  int32_t weights = -1, bias = kNoTensor;
  switch (type) {
    case DataType::kFloat32: {
      l.op.input = b.add_tensor("input", type, in_shape);
      weights = b.add_constant_values<float>("weights", type, {u, d}, random_values<float>(rng, int64_t{u} * d, -3, 3));
      if (with_bias) bias = b.add_constant_values<float>("bias", type, {u}, random_values<float>(rng, u, -3, 3));
      l.op.output = b.add_tensor("output", type, out_shape);
      break;
    }
    case DataType::kInt8: {
      l.op.input = b.add_tensor("input", type, in_shape, test::per_tensor(0.05f, 3));
      Quantization wq = test::per_tensor(0.02f, 0);
      if (pick(0, 1) == 1) {  // per channel
        wq.scale.assign(static_cast<size_t>(u), 0.0f);
        wq.zero_point.assign(static_cast<size_t>(u), 0);
        for (int32_t k = 0; k < u; ++k) wq.scale[static_cast<size_t>(k)] = 0.01f + 0.003f * static_cast<float>(k);
      }
      weights = b.add_constant_values<int8_t>("weights", type, {u, d},
                                              random_values<int8_t>(rng, int64_t{u} * d, -127, 127), wq);
      if (with_bias) {
        bias = b.add_constant_values<int32_t>("bias", DataType::kInt32, {u}, random_values<int32_t>(rng, u, -500, 500));
      }
      l.op.output = b.add_tensor("output", type, out_shape, test::per_tensor(0.1f, -5));
      break;
    }
    case DataType::kUInt8: {
      l.op.input = b.add_tensor("input", type, in_shape, test::per_tensor(0.05f, 128));
      weights = b.add_constant_values<uint8_t>("weights", type, {u, d},
                                               random_values<uint8_t>(rng, int64_t{u} * d, 0, 255),
                                               test::per_tensor(0.02f, 120));
      if (with_bias) {
        bias = b.add_constant_values<int32_t>("bias", DataType::kInt32, {u}, random_values<int32_t>(rng, u, -500, 500));
      }
      l.op.output = b.add_tensor("output", type, out_shape, test::per_tensor(0.1f, 128));
      break;
    }
    default: {  // INT16 activations, INT8 weights, INT64 bias
      l.op.input = b.add_tensor("input", DataType::kInt16, in_shape, test::per_tensor(0.001f, 0));
      weights = b.add_constant_values<int8_t>("weights", DataType::kInt8, {u, d},
                                              random_values<int8_t>(rng, int64_t{u} * d, -127, 127),
                                              test::per_tensor(0.02f, 0));
      if (with_bias) {
        bias = b.add_constant_values<int64_t>("bias", DataType::kInt64, {u}, random_values<int64_t>(rng, u, -500, 500));
      }
      l.op.output = b.add_tensor("output", DataType::kInt16, out_shape, test::per_tensor(0.002f, 0));
      break;
    }
  }
  FullyConnectedParams p;
  p.keep_num_dims = keep_num_dims;
  std::vector<int32_t> inputs = {l.op.input, weights};
  if (bias != kNoTensor) inputs.push_back(bias);
  b.add_op(OpKind::kFullyConnected, inputs, {l.op.output}, p);
  b.set_inputs({l.op.input});
  b.set_outputs({l.op.output});
  l.op.graph = b.finish();
  l.description = fmt::format("{} batches {} depth {} units {}{}{}", data_type_name(type),
                              l.batches, l.depth, l.units, keep_num_dims ? " keep_num_dims" : "",
                              with_bias ? "" : " no bias");
  return l;
}

// The loop order replayed on byte addresses, independent of the kernels:
// output at [O - X, O) below the input at [0, I); the largest O for which
// no store lands on an input byte that a later load reads.
int64_t replayed_overlap(const Layer& l, int64_t e_i, int64_t e_o) {
  const int64_t out_bytes = l.batches * l.units * e_o;
  for (int64_t overlap = out_bytes; overlap > 0; --overlap) {
    const int64_t out_start = overlap - out_bytes;
    bool safe = true;
    for (int64_t b = 0; b < l.batches && safe; ++b) {
      for (int64_t u = 0; u < l.units && safe; ++u) {
        const int64_t store_end = out_start + (b * l.units + u + 1) * e_o;
        // The loads after this store: row b again while units remain, then
        // every later row.
        const int64_t next_read = u + 1 < l.units ? b * l.depth * e_i : (b + 1) * l.depth * e_i;
        const bool reads_remain = u + 1 < l.units || b + 1 < l.batches;
        if (reads_remain && store_end > next_read) safe = false;
      }
    }
    if (safe) return overlap;
  }
  return 0;
}

TEST(FullyConnectedClosedForm, EqualsTheAddressOnlyPolicyAndTheReplayedOrder) {
  std::mt19937 rng(20261202);
  int checked = 0, overlapping = 0;
  for (DataType type : {DataType::kFloat32, DataType::kInt8, DataType::kUInt8, DataType::kInt16}) {
    for (int trial = 0; trial < 120; ++trial) {
      const Layer l = random_fully_connected(rng, type);
      SCOPED_TRACE(l.description);
      const Subgraph& sg = l.op.graph.main();
      const Tensor& in = sg.tensors[static_cast<size_t>(l.op.input)];
      const Tensor& out = sg.tensors[static_cast<size_t>(l.op.output)];
      const AnalyticOverlap analytic = analytic_safe_overlap(sg, 0, l.op.input, l.op.output);
      ASSERT_TRUE(analytic.bytes.has_value()) << analytic.rule;
      const int64_t algorithmic = algorithmic_safe_overlap(l.op.graph, 0, l.op.input, l.op.output);
      EXPECT_EQ(*analytic.bytes, algorithmic);
      EXPECT_EQ(*analytic.bytes,
                replayed_overlap(l, in.byte_size / in.element_count, out.byte_size / out.element_count));
      const std::vector<uint8_t> input = pattern_input(sg, 3);
      EXPECT_FALSE(test::clobbers_at_overlap(l.op, *analytic.bytes, input));
      if (*analytic.bytes < out.byte_size) {
        EXPECT_TRUE(test::clobbers_at_overlap(l.op, *analytic.bytes + 1, input));
      }
      overlapping += *analytic.bytes > out.byte_size / out.element_count;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 480);
  // Batched layers overlap more than one element: the sweep reaches them.
  EXPECT_GT(overlapping, 50);
}

// The closed form's shape: batch 1 overlaps one output element (the last
// store follows every load); a batched layer whose rows are wider than its
// outputs lets each row's outputs fall over rows already read.
TEST(FullyConnectedClosedForm, WorkedValues) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const Layer l = random_fully_connected(rng, DataType::kFloat32);
    const Subgraph& sg = l.op.graph.main();
    const int64_t value = *analytic_safe_overlap(sg, 0, l.op.input, l.op.output).bytes;
    if (l.batches == 1) {
      EXPECT_EQ(value, 4) << l.description;
    }
    // Rows of depth D, U outputs, B batches, 4-byte elements.
    if (l.batches == 3 && l.units >= 2 && l.depth >= l.units) {
      EXPECT_EQ(value, 3 * l.units * 4 - (l.units - 1) * 4) << l.description;
    }
  }
}

}  // namespace
}  // namespace dmo

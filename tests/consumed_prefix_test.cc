// Bytes slices have consumed (schedule/consumed_prefix.h): a tensor read
// only by slices from some step on is dead below the least begin of the
// slices still to run. The checked run and the validator accept a buffer
// ending inside that prefix and report one reaching a byte a later slice
// reads; a CONCATENATION input placed exactly at its block (copied onto
// itself) is accepted, one 16 bytes off is not.
#include <gtest/gtest.h>

#include "dmo/pipeline/verified_plan.h"
#include "dmo/runtime/input_pattern.h"
#include "dmo/runtime/tensor_placement.h"
#include "dmo/schedule/consumed_prefix.h"
#include "dmo/zoo/graph_builder.h"

namespace dmo {
namespace {

// x [1,6,2,2] float: a = x rows [0,3), c = relu(a), b = x rows [3,6),
// y = concat(c, b) along the height. 16 bytes per row of x.
struct SlicedGraph {
  Graph graph;
  int32_t x = 0, a = 0, c = 0, b = 0, y = 0;
};

SlicedGraph sliced_graph() {
  SlicedGraph s;
  GraphBuilder g("sliced");
  s.x = g.add_tensor("x", DataType::kFloat32, {1, 6, 2, 2});
  auto slice = [&](const std::string& name, int32_t first_row, int32_t end_row) {
    const int32_t begin = g.add_constant_values(name + " begin", DataType::kInt32, {4},
                                                std::vector<int32_t>{0, first_row, 0, 0});
    const int32_t end = g.add_constant_values(name + " end", DataType::kInt32, {4},
                                              std::vector<int32_t>{1, end_row, 2, 2});
    const int32_t strides = g.add_constant_values(name + " strides", DataType::kInt32, {4},
                                                  std::vector<int32_t>{1, 1, 1, 1});
    const int32_t out = g.add_tensor(name, DataType::kFloat32, {1, end_row - first_row, 2, 2});
    g.add_op(OpKind::kStridedSlice, {s.x, begin, end, strides}, {out}, StridedSliceParams{});
    return out;
  };
  s.a = slice("a", 0, 3);
  s.c = g.add_tensor("c", DataType::kFloat32, {1, 3, 2, 2});
  g.add_op(OpKind::kRelu, {s.a}, {s.c});
  s.b = slice("b", 3, 6);
  s.y = g.add_tensor("y", DataType::kFloat32, {1, 6, 2, 2});
  ConcatenationParams height;
  height.axis = 1;
  g.add_op(OpKind::kConcatenation, {s.c, s.b}, {s.y}, height);
  g.set_inputs({s.x});
  g.set_outputs({s.y});
  s.graph = g.finish();
  return s;
}

TEST(ConsumedPrefix, SlicesFreeTheRowsBehindTheirBegins) {
  const SlicedGraph s = sliced_graph();
  const std::vector<ConsumedPrefix> consumed = consumed_prefixes(s.graph, default_schedule(s.graph));
  ASSERT_EQ(consumed.size(), 1u);
  EXPECT_EQ(consumed[0].tensor, s.x);
  EXPECT_EQ(consumed[0].first_slice_op, 2);
  // Step 0 slices from row 0; steps 1 and 2 have only the slice from row 3 to come.
  EXPECT_EQ(consumed[0].dead_bytes[0], 0);
  EXPECT_EQ(consumed[0].dead_bytes[1], 48);
  EXPECT_EQ(consumed[0].dead_bytes[2], 48);
}

// x at 0; c (48 bytes, written at step 1) at `c_offset`; a, b and y apart.
TensorPlacement placement_with_c_at(const SlicedGraph& s, int64_t c_offset) {
  TensorPlacement p;
  p.offsets.assign(s.graph.main().tensors.size(), -1);
  p.offsets[static_cast<size_t>(s.x)] = 0;
  p.offsets[static_cast<size_t>(s.c)] = c_offset;
  p.offsets[static_cast<size_t>(s.a)] = 96;
  p.offsets[static_cast<size_t>(s.b)] = 144;
  p.offsets[static_cast<size_t>(s.y)] = 192;
  p.arena_size = 288;
  return p;
}

TEST(ConsumedPrefix, ABufferMayEndInsideTheConsumedRowsAndNoFurther) {
  const SlicedGraph s = sliced_graph();
  const std::vector<uint8_t> input = pattern_input(s.graph.main(), 1);
  const VerifyResult inside = verify_plan(s.graph, placement_with_c_at(s, 0), input);
  EXPECT_TRUE(inside.ok()) << inside.describe(s.graph);
  // 16 bytes higher, c's last row lies over x's row 3, which b still reads.
  const VerifyResult past = verify_plan(s.graph, placement_with_c_at(s, 16), input);
  EXPECT_FALSE(past.clobbers.empty()) << past.describe(s.graph);
  EXPECT_FALSE(past.validator_errors.empty()) << past.describe(s.graph);
}

TEST(ConsumedPrefix, AConcatenationInputAtItsOwnBlockIsCopiedOntoItself) {
  const SlicedGraph s = sliced_graph();
  const std::vector<uint8_t> input = pattern_input(s.graph.main(), 1);
  // b (rows 3-5 of y) placed at its block of y: y at 192, b at 240.
  TensorPlacement at_block = placement_with_c_at(s, 0);
  at_block.offsets[static_cast<size_t>(s.b)] = 240;
  const VerifyResult own = verify_plan(s.graph, at_block, input);
  EXPECT_TRUE(own.ok()) << own.describe(s.graph);
  TensorPlacement off_block = at_block;
  off_block.offsets[static_cast<size_t>(s.b)] = 224;
  off_block.arena_size = 288;
  const VerifyResult off = verify_plan(s.graph, off_block, input);
  EXPECT_FALSE(off.ok()) << off.describe(s.graph);
}

}  // namespace
}  // namespace dmo

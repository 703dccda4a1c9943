// Split stages written as whole ops (transform/tiled_stages.h): the
// rewritten graph computes the original's outputs bit for bit, with the
// slices, pads and one concatenation per stage, and refuses what TFLM's
// dense tensors cannot express.
#include <gtest/gtest.h>

#include <map>

#include "dmo/error.h"
#include "dmo/runtime/input_pattern.h"
#include "dmo/runtime/interpreter.h"
#include "dmo/transform/stage_tiling.h"
#include "dmo/transform/tiled_stages.h"
#include "dmo/zoo/graph_builder.h"
#include "dmo/zoo/zoo.h"

namespace dmo {
namespace {

std::vector<uint8_t> outputs_of(const Graph& g, uint32_t seed) {
  Interpreter interpreter(g, unshared_placement(g.main()));
  interpreter.set_inputs(pattern_input(g.main(), seed));
  interpreter.run();
  return interpreter.outputs();
}

std::map<std::string, int> op_counts(const Graph& g) {
  std::map<std::string, int> counts;
  for (const Op& op : g.main().ops) ++counts[op.name()];
  return counts;
}

TEST(TiledStages, ZooMobileNetsGiveTheSameOutputs) {
  for (const char* name : {"mobilenet_v1_0.25_128_int8", "mobilenet_v2_0.35_96_float32"}) {
    const Graph g = build_zoo_model(name);
    for (const char* spec : {"0-3:4", "0-2:7", "1-4:3"}) {
      const SplitStage stage = parse_split_spec(spec);
      const Graph tiled = tiled_stages(g, {stage});
      const int32_t ops_in_stage = stage.last_op - stage.first_op + 1;
      // Per tile a slice, the stage's ops (and pads), then one concatenation.
      EXPECT_GE(tiled.main().ops.size(), g.main().ops.size() - static_cast<size_t>(ops_in_stage) +
                                             static_cast<size_t>(stage.tiles * (1 + ops_in_stage) + 1))
          << name << " " << spec;
      EXPECT_EQ(op_counts(tiled)["STRIDED_SLICE"] - op_counts(g)["STRIDED_SLICE"], stage.tiles);
      EXPECT_EQ(op_counts(tiled)["CONCATENATION"] - op_counts(g)["CONCATENATION"], 1);
      for (uint32_t seed : {1u, 2u}) EXPECT_EQ(outputs_of(tiled, seed), outputs_of(g, seed)) << name << " " << spec;
    }
  }
}

TEST(TiledStages, TwoStagesAtOnceAndTheWeightsShared) {
  const Graph g = build_zoo_model("mobilenet_v1_0.25_128_int8");
  const Graph tiled = tiled_stages(g, {parse_split_spec("4-6:3"), parse_split_spec("0-3:5")});
  EXPECT_EQ(outputs_of(tiled, 1), outputs_of(g, 1));
  // No constant is copied: the new constants are the slices' and pads'
  // small int32 vectors.
  auto int8_weight_bytes = [](const Graph& graph) {
    int64_t bytes = 0;
    for (const Tensor& t : graph.main().tensors) bytes += t.is_constant && t.type == DataType::kInt8 ? t.byte_size : 0;
    return bytes;
  };
  EXPECT_GT(int8_weight_bytes(g), 0);
  EXPECT_EQ(int8_weight_bytes(tiled), int8_weight_bytes(g));
}

// TFLM gives every tensor of the list a buffer, including one no op uses,
// and all such buffers stack up: the replaced intermediates must go, and
// every index (ops, inputs, outputs, the tiles' concatenations) must follow.
TEST(TiledStages, DropsTheIntermediatesItReplaces) {
  const Graph g = build_zoo_model("mobilenet_v1_0.25_128_int8");
  std::vector<int32_t> concatenations;
  const Graph tiled = tiled_stages(g, {parse_split_spec("4-6:3"), parse_split_spec("0-3:5")}, &concatenations);
  const Subgraph& sg = tiled.main();
  std::vector<bool> used(sg.tensors.size(), false);
  for (const Op& op : sg.ops) {
    for (int32_t t : op.inputs) {
      if (t >= 0) used[static_cast<size_t>(t)] = true;
    }
    for (int32_t t : op.outputs) used[static_cast<size_t>(t)] = true;
  }
  for (size_t t = 0; t < used.size(); ++t) EXPECT_TRUE(used[t]) << "tensor " << t << " '" << sg.tensors[t].name << "'";
  ASSERT_EQ(concatenations.size(), 2u);
  for (int32_t op : concatenations) {
    EXPECT_TRUE(sg.ops[static_cast<size_t>(op)].is(OpKind::kConcatenation));
  }
  // The concatenations write the stages' outputs, under their own names.
  EXPECT_EQ(sg.tensors[static_cast<size_t>(sg.ops[static_cast<size_t>(concatenations[0])].outputs[0])].name,
            g.main().tensors[static_cast<size_t>(g.main().ops[3].outputs[0])].name);
  EXPECT_EQ(sg.tensors[static_cast<size_t>(sg.ops[static_cast<size_t>(concatenations[1])].outputs[0])].name,
            g.main().tensors[static_cast<size_t>(g.main().ops[6].outputs[0])].name);
  EXPECT_EQ(outputs_of(tiled, 1), outputs_of(g, 1));
}

// conv 3x3 SAME -> max pool 3x3 SAME stride 1 (padded with the lowest
// value) or average pool (refused: its border divides by fewer taps).
Graph conv_then_pool(OpKind pool) {
  GraphBuilder b("conv_pool");
  const Quantization q{{0.05f}, {-3}, 0};
  const int32_t in = b.add_tensor("in", DataType::kInt8, {1, 9, 7, 4}, q);
  std::vector<int8_t> weights(4 * 3 * 3 * 4);
  for (size_t i = 0; i < weights.size(); ++i) weights[i] = static_cast<int8_t>(static_cast<int>(i * 29 % 23) - 11);
  const int32_t filter = b.add_constant_values("w", DataType::kInt8, {4, 3, 3, 4}, weights,
                                               Quantization{{0.02f, 0.03f, 0.02f, 0.01f}, {0, 0, 0, 0}, 0});
  const int32_t bias = b.add_constant_values("b", DataType::kInt32, {4}, std::vector<int32_t>{5, -7, 100, 0},
                                             Quantization{{0.001f, 0.0015f, 0.001f, 0.0005f}, {0, 0, 0, 0}, 0});
  const int32_t mid = b.add_tensor("mid", DataType::kInt8, {1, 9, 7, 4}, q);
  b.add_op(OpKind::kConv2D, {in, filter, bias}, {mid}, Conv2DParams{});
  const int32_t out = b.add_tensor("out", DataType::kInt8, {1, 9, 7, 4}, q);
  Pool2DParams pooling;
  pooling.filter_h = pooling.filter_w = 3;
  b.add_op(pool, {mid}, {out}, pooling);
  b.set_inputs({in});
  b.set_outputs({out});
  return b.finish();
}

TEST(TiledStages, MaxPoolingPadsWithTheLowestValue) {
  const Graph g = conv_then_pool(OpKind::kMaxPool2D);
  const Graph tiled = tiled_stages(g, {parse_split_spec("0-1:3")});
  EXPECT_EQ(op_counts(tiled)["PADV2"], 3);  // each tile reaches the left and right padding
  for (uint32_t seed : {1u, 2u, 3u}) EXPECT_EQ(outputs_of(tiled, seed), outputs_of(g, seed));
}

TEST(TiledStages, RefusesAveragePoolingAtPaddingAndColumnTiles) {
  const Graph avg = conv_then_pool(OpKind::kAveragePool2D);
  try {
    tiled_stages(avg, {parse_split_spec("0-1:3")});
    ADD_FAILURE() << "average pooling over padding was tiled";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("AVERAGE_POOL_2D"), std::string::npos) << e.what();
  }
  try {
    tiled_stages(build_zoo_model("mobilenet_v1_0.25_128_int8"), {parse_split_spec("0-3:4x2")});
    ADD_FAILURE() << "column tiles were tiled";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("column tiles"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace dmo

// TFLM's persistent tail (plan/tflm_tail.h): the allocations replayed in
// TFLM's order on a graph small enough to count by hand, and the whole
// arena (head + tail) against what TFLM + CMSIS-NN reported on an
// emulated Cortex-M4 (MicroInterpreter::arena_used_bytes()).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "dmo/pipeline/plan_pipeline.h"
#include "dmo/pipeline/tflm_deployment.h"
#include "dmo/plan/tflm_tail.h"
#include "dmo/tflite/reader.h"
#include "dmo/zoo/graph_builder.h"
#include "int8_conv_graph.h"
#include "test_support.h"

namespace dmo {
namespace {

// One int8 3x3 CONV_2D, 8 output channels per-channel quantized, input and
// output per-tensor quantized: four tensors, one op.
Graph one_conv() {
  GraphBuilder b("one_conv");
  const Quantization q{{0.05f}, {3}, 0};
  const int32_t in = b.add_tensor("in", DataType::kInt8, {1, 6, 6, 2}, q);
  const int32_t out = test::add_int8_conv3x3(b, "out", in, 2, {1, 6, 6, 8}, Padding::kSame, 1, q);
  b.set_inputs({in});
  b.set_outputs({out});
  return b.finish();
}

// Counted from TFLM's allocation order, the tail growing by each size then
// down to the alignment: allocator objects 36 + 44 + 36 = 116; builtin data
// allocator 8 -> 124; one SubgraphAllocations 8 -> 132; four eval tensors
// 48 -> 180; one NodeAndRegistration 32 -> 212; TfLiteConvParams 28 -> 240;
// the conv's OpData (56 reference, 60 CMSIS-NN) at 16 -> 304; multipliers
// and shifts 2 x 32 -> 368; then the input pointer array 4 at 16 -> 384,
// its TfLiteTensor 32 -> 416, quantization 12 -> 428 and one zero point
// 4 + 4 -> 436; the output's the same -> 500.
TEST(TflmTail, OneConvCountedByHand) {
  const Graph g = one_conv();
  for (TailKernels kernels : {TailKernels::kReference, TailKernels::kCmsisNn}) {
    const std::optional<TflmTail> t = predict_tflm_tail(g, kernels, 0, std::nullopt);
    ASSERT_TRUE(t.has_value());
    EXPECT_EQ(t->bytes, 500);
    EXPECT_EQ(t->runtime_bytes, 132);
    EXPECT_EQ(t->node_bytes, 32 + 28);
    EXPECT_EQ(t->kernel_bytes, 304 - 240 + 64);
    EXPECT_EQ(t->bytes, t->runtime_bytes + t->tensor_bytes + t->node_bytes + t->kernel_bytes +
                            t->scratch_handle_bytes + t->variable_bytes);
  }
  // A scratch request costs a 4-byte handle after Prepare: 368 -> 372,
  // which the input pointer array's alignment absorbs (-> 384).
  EXPECT_EQ(predict_tflm_tail(g, TailKernels::kCmsisNn, 1, std::nullopt)->bytes, 500);
  // Five handles: 368 -> 388, so the pointer array starts at 400.
  EXPECT_EQ(predict_tflm_tail(g, TailKernels::kCmsisNn, 5, std::nullopt)->bytes, 516);
}

TEST(TflmTail, VariableTensorsPlacedOfflineLeaveTheTail) {
  GraphBuilder b("variable");
  const int32_t in = b.add_tensor("in", DataType::kFloat32, {1, 4});
  const int32_t state = b.add_tensor("state", DataType::kFloat32, {1, 10});
  const int32_t out = b.add_tensor("out", DataType::kFloat32, {1, 4});
  b.add_op(OpKind::kAdd, {in, in}, {out});
  b.set_inputs({in});
  b.set_outputs({out});
  Graph g = b.finish();
  g.subgraphs[0].tensors[static_cast<size_t>(state)].is_variable = true;
  const std::optional<TflmTail> online = predict_tflm_tail(g, TailKernels::kReference, 0, std::nullopt);
  ASSERT_TRUE(online.has_value());
  EXPECT_EQ(online->variable_bytes, 48);  // 40 bytes at 16
  OfflinePlan words{0, 1, {-1, 0, -1}};
  const std::optional<TflmTail> placed = predict_tflm_tail(g, TailKernels::kReference, 0, words);
  ASSERT_TRUE(placed.has_value());
  EXPECT_EQ(placed->variable_bytes, 0);
  EXPECT_LT(placed->bytes, online->bytes);
}

TEST(TflmTail, CustomOpsLeaveTheTailUnknownAndSayWhich) {
  GraphBuilder b("custom");
  const int32_t in = b.add_tensor("in", DataType::kInt8, {4});
  const int32_t out = b.add_tensor("out", DataType::kInt8, {4});
  b.add_op(OpKind::kCustom, {in}, {out});
  b.set_inputs({in});
  b.set_outputs({out});
  Graph g = b.finish();
  g.subgraphs[0].ops[0].custom_code = "MyOp";
  std::string unknown;
  EXPECT_FALSE(predict_tflm_tail(g, TailKernels::kReference, 0, std::nullopt, &unknown).has_value());
  EXPECT_EQ(unknown, "subgraph 0 op 0 (MyOp)");
}

// TFLM + CMSIS-NN with ARM_MATH_DSP on QEMU's mps2-an386: arena_used_bytes()
// after AllocateTensors with TFLM's own plan (../shared/docs/REFERENCE.md,
// section 8).
TEST(TflmTail, WholeArenaEqualsTflmCmsisNnOnACortexM4) {
  DMO_REQUIRE_SHARED(shared);
  const std::vector<std::pair<std::string, int64_t>> measured = {{"tiny_kws_ref_model_int8", 22820},
                                                                 {"tiny_vww_96_int8", 100708},
                                                                 {"tiny_resnet8_int8", 54996},
                                                                 {"tflm_person_detect_int8", 82308},
                                                                 {"tiny_ad01_int8", 2580}};
  for (const auto& [model, arena_used] : measured) {
    const Graph g = read_tflite_file(shared + "/models/" + model + ".tflite");
    PlanOptions options;
    options.families = {KernelFamily::kCmsisNnDsp};
    const std::vector<TflmArena> arenas = tflm_arenas(g, plan_model(g, options));
    ASSERT_EQ(arenas.size(), 1u);
    ASSERT_TRUE(arenas[0].total_bytes().has_value()) << model << ": " << arenas[0].unknown_op;
    EXPECT_EQ(*arenas[0].total_bytes(), arena_used) << model;
  }
}

}  // namespace
}  // namespace dmo

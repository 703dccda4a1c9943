// TFLM's kernels' scratch buffers: the sizes their Prepare requests, and
// the head TFLM needs once it places them around offline-planned tensors.
#include "dmo/plan/tflm_scratch_buffers.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "dmo/error.h"
#include "dmo/pipeline/plan_pipeline.h"
#include "dmo/report/plan_report.h"
#include "dmo/plan/tflm_layout.h"
#include "dmo/tflite/reader.h"
#include "test_support.h"

namespace dmo {
namespace {

Tensor tensor(DataType type, Shape shape) {
  Tensor t;
  t.type = type;
  t.shape = shape;
  t.element_count = 1;
  for (int32_t d : shape) t.element_count *= d;
  t.byte_size = t.element_count * element_size(type).value_or(1);
  return t;
}

// One op reading tensors 0..n_in-1 and writing the rest.
Subgraph one_op(Op op, std::vector<Tensor> tensors, size_t inputs) {
  Subgraph sg;
  sg.tensors = std::move(tensors);
  for (size_t t = 0; t < sg.tensors.size(); ++t) (t < inputs ? op.inputs : op.outputs).push_back(static_cast<int32_t>(t));
  sg.ops.push_back(std::move(op));
  return sg;
}

Op builtin(OpKind kind) {
  Op op;
  op.builtin_code = static_cast<int32_t>(kind);
  return op;
}

Subgraph svdf(DataType type, int32_t rank) {
  Op op = builtin(OpKind::kSvdf);
  op.params = SvdfParams{.rank = rank};
  // batch 2, input 10, 12 filters, memory 4, 12 / rank units.
  return one_op(op,
                {tensor(type, {2, 10}), tensor(type, {12, 10}), tensor(type, {12, 4}), tensor(DataType::kInt32, {12}),
                 tensor(type, {2, 48}), tensor(type, {2, rank > 0 ? 12 / rank : 12})},
                5);
}

TEST(TflmScratchBuffers, SvdfInt8TakesTwoInt32BuffersFloatOne) {
  auto int8 = tflm_scratch_buffers(svdf(DataType::kInt8, 3), "m");
  ASSERT_EQ(int8.size(), 2u);
  EXPECT_EQ(int8[0].bytes, 2 * 12 * 4);  // batch x filters
  EXPECT_EQ(int8[1].bytes, 2 * 4 * 4);   // batch x units
  auto float32 = tflm_scratch_buffers(svdf(DataType::kFloat32, 3), "m");
  ASSERT_EQ(float32.size(), 1u);
  EXPECT_EQ(float32[0].bytes, 2 * 12 * 4);
  EXPECT_NE(float32[0].kernel.find("svdf_common.cc"), std::string::npos);
}

TEST(TflmScratchBuffers, QuantizedTransposeConvAccumulatesPerOutputElement) {
  // (output_shape, filter, input, bias) -> output 1x4x4x3.
  auto transpose_conv = [](DataType input, DataType bias) {
    return tflm_scratch_buffers(one_op(builtin(OpKind::kTransposeConv),
                                       {tensor(DataType::kInt32, {4}), tensor(DataType::kInt8, {3, 2, 2, 2}),
                                        tensor(input, {1, 2, 2, 2}), tensor(bias, {3}), tensor(input, {1, 4, 4, 3})},
                                       4),
                                "m");
  };
  const auto int8 = transpose_conv(DataType::kInt8, DataType::kInt32);
  ASSERT_EQ(int8.size(), 1u);
  EXPECT_EQ(int8[0].bytes, 48 * 4);
  const auto int16 = transpose_conv(DataType::kInt16, DataType::kInt64);
  ASSERT_EQ(int16.size(), 1u);
  EXPECT_EQ(int16[0].bytes, 48 * 8);
  const auto int16_bias = transpose_conv(DataType::kInt16, DataType::kInt16);
  ASSERT_EQ(int16_bias.size(), 2u);
  EXPECT_EQ(int16_bias[1].bytes, 3 * 8);
  EXPECT_TRUE(transpose_conv(DataType::kFloat32, DataType::kFloat32).empty());
}

TEST(TflmScratchBuffers, RefusesAnSvdfWithoutRankNamingTheOp) {
  try {
    tflm_scratch_buffers(svdf(DataType::kInt8, 0), "model.tflite");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("model.tflite: op 0 (SVDF)"), std::string::npos) << e.what();
  }
}

TEST(TflmScratchBuffers, MeanAsksForAnIndexWalkAndIntegerMeanAnInt32SumPerOutputElement) {
  // PrepareMeanOrSumHelper: [int32 sum per output (int8, int16)], an int per
  // input dimension, an int per axis element; in that order.
  Op op = builtin(OpKind::kMean);
  auto mean = [&](DataType type) {
    std::vector<int64_t> bytes;
    for (const ScratchBuffer& s : tflm_scratch_buffers(
             one_op(op, {tensor(type, {1, 4, 4, 6}), tensor(DataType::kInt32, {2}), tensor(type, {1, 6})}, 2), "m")) {
      bytes.push_back(s.bytes);
    }
    return bytes;
  };
  EXPECT_EQ(mean(DataType::kInt8), (std::vector<int64_t>{24, 16, 8}));
  EXPECT_EQ(mean(DataType::kInt16), (std::vector<int64_t>{24, 16, 8}));
  EXPECT_EQ(mean(DataType::kFloat32), (std::vector<int64_t>{16, 8}));
}

TEST(TflmScratchBuffers, Int4FiltersAreUnpackedIntoAScratchCopy) {
  Op op = builtin(OpKind::kConv2D);
  auto conv = [&](DataType filter) {
    return tflm_scratch_buffers(one_op(op,
                                       {tensor(DataType::kInt8, {1, 8, 8, 3}), tensor(filter, {16, 3, 3, 3}),
                                        tensor(DataType::kInt32, {16}), tensor(DataType::kInt8, {1, 8, 8, 16})},
                                       3),
                                "m");
  };
  ASSERT_EQ(conv(DataType::kInt4).size(), 1u);
  EXPECT_EQ(conv(DataType::kInt4)[0].bytes, 16 * 3 * 3 * 3);
  EXPECT_TRUE(conv(DataType::kInt8).empty());
}

TEST(TflmScratchBuffers, RfftPadsAFrameToTheFftLength) {
  Op op = builtin(OpKind::kCustom);
  op.custom_code = "SignalRfft";
  // fft_length 512: 257 complex int16 values out.
  auto rfft = tflm_scratch_buffers(one_op(op, {tensor(DataType::kInt16, {480}), tensor(DataType::kInt16, {514})}, 1), "m");
  ASSERT_EQ(rfft.size(), 1u);
  EXPECT_EQ(rfft[0].bytes, 1024);
  // RfftPrepare asks for fft_length elements of the type: 4 bytes each in
  // INT32 and FLOAT32.
  for (DataType type : {DataType::kInt32, DataType::kFloat32}) {
    auto wide = tflm_scratch_buffers(one_op(op, {tensor(type, {480}), tensor(type, {514})}, 1), "m");
    ASSERT_EQ(wide.size(), 1u);
    EXPECT_EQ(wide[0].bytes, 2048);
    EXPECT_EQ(wide[0].kernel, fmt::format("SignalRfft {} (rfft.cc)", data_type_name(type)));
  }
}

TEST(TflmScratchBuffers, OnSharedModels) {
  DMO_REQUIRE_SHARED(shared);
  auto scratch_of = [&](const std::string& name) {
    Graph graph = read_tflite_file(shared + "/models/" + name + ".tflite");
    return tflm_scratch_buffers(graph.main(), graph.source);
  };
  auto audio = scratch_of("tflm_audio_preprocessor_int8");
  ASSERT_EQ(audio.size(), 1u);
  EXPECT_EQ(audio[0].bytes, 1024);
  auto lstm = scratch_of("tflm_mnist_lstm_int8");
  ASSERT_EQ(lstm.size(), 4u);
  for (const ScratchBuffer& s : lstm) EXPECT_EQ(s.bytes, 40);  // 20 int16 cell states
  auto svdf_model = scratch_of("tflm_keyword_scrambled_8bit");
  EXPECT_EQ(svdf_model.size(), 14u);  // seven int8 SVDFs, two buffers each
  EXPECT_TRUE(scratch_of("tiny_vww_96_int8").empty());
  // A float MEAN over one axis of a 3-D input: an int per dimension and per axis.
  auto mean = scratch_of("tfls_movie_review_float");
  ASSERT_EQ(mean.size(), 2u);
  EXPECT_EQ(mean[0].bytes, 12);
  EXPECT_EQ(mean[1].bytes, 4);
}

// TFLM rounds every size up to 16, offline-planned ones included, and puts
// its scratch buffers at the lowest gap around them.
TEST(TflmLayout, HeadOfOfflineOffsetsCountsRoundingAndScratch) {
  MemoryProblem p;
  p.op_count = 2;
  p.buffers = {{0, 17, {-1, 0}}, {1, 17, {0, 1}}, {kNoTensor, 24, {1, 1}, 16}};
  // An ADD writing its 17-byte output over its dying 17-byte input.
  Plan tensors_only = plan_tflm_with_offsets(p, {0, 0, -1});
  EXPECT_EQ(tensors_only.offsets[2], 32);  // above the output's rounded 32 bytes
  EXPECT_EQ(tensors_only.arena_size, 64);
  Plan plan;
  plan.offsets = {0, 0, 0};
  Plan laid_out = tflm_layout(p, plan);
  EXPECT_EQ(laid_out.offsets[2], 32);
  EXPECT_EQ(laid_out.arena_size, 64);
  // Tensor 0 is dead at op 1: the scratch buffer takes its place.
  plan.offsets = {0, 32, 0};
  EXPECT_EQ(tflm_layout(p, plan).offsets[2], 0);
  EXPECT_EQ(tflm_layout(p, plan).arena_size, 64);
}

}  // namespace
}  // namespace dmo

namespace dmo {
namespace {

// `dmo plan --json` gives dmo's offsets per tensor (scratch buffers are no
// tensors) and lists the scratch buffers with where TFLM puts them.
TEST(TflmScratchBuffers, PlanReportListsThemBesideTheTensorOffsets) {
  DMO_REQUIRE_SHARED(shared);
  Graph graph = read_tflite_file(shared + "/models/tflm_keyword_scrambled_8bit.tflite");
  PlanResult r = plan_model(graph);
  nlohmann::json j = plan_report_json(graph, r);
  const TensorPlacement placement = dmo_placement(graph, r);
  ASSERT_EQ(j["offsets"].size(), graph.main().tensors.size());
  for (size_t t = 0; t < placement.offsets.size(); ++t) EXPECT_EQ(j["offsets"][t].get<int64_t>(), placement.offsets[t]);
  EXPECT_EQ(j["ascending_offsets"].size(), graph.main().tensors.size());
  ASSERT_EQ(j["scratch_buffers"].size(), 14u);
  EXPECT_EQ(j["scratch_buffers"][0]["op"], 1);
  EXPECT_EQ(j["scratch_buffers"][0]["bytes"], 256);
  // Every figure is TFLM's head for the plan, scratch buffers included.
  EXPECT_EQ(j["dmo_bytes"].get<int64_t>(), plan_tflm_with_offsets(r.problem, tensor_offsets(r.problem, r.dmo)).arena_size);
  EXPECT_EQ(j["tflm_greedy_bytes"], 672);
}

}  // namespace
}  // namespace dmo

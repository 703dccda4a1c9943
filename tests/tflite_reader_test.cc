// The reader on small models written in the test: a valid one imports with
// every field, and every kind of damage is a dmo::Error naming the problem.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "dmo/error.h"
#include "dmo/tflite/offline_plan.h"
#include "dmo/tflite/graph_writer.h"
#include "dmo/tflite/reader.h"
#include "dmo/zoo/graph_builder.h"
#include "tflite_test_model.h"

namespace dmo {
namespace {

using test::small_conv_model;
using test::TestModel;
using test::write_test_model;

std::string error_of(const std::vector<uint8_t>& bytes) {
  try {
    read_tflite_bytes(bytes, "model.tflite");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(TfliteReader, ImportsValidModel) {
  Graph g = read_tflite_bytes(write_test_model(small_conv_model()), "small");
  ASSERT_EQ(g.subgraphs.size(), 1u);
  const Subgraph& sg = g.main();
  ASSERT_EQ(sg.tensors.size(), 5u);
  ASSERT_EQ(sg.ops.size(), 2u);
  EXPECT_TRUE(sg.ops[0].is(OpKind::kConv2D));
  EXPECT_EQ(sg.ops[1].name(), "RELU");
  EXPECT_EQ(sg.tensors[3].byte_size, 8 * 8 * 8 * 4);
  EXPECT_FALSE(sg.tensors[0].is_constant);
  EXPECT_TRUE(sg.tensors[1].is_constant);
  EXPECT_EQ(sg.tensors[1].data.size(), 128u);
  const auto& conv = std::get<Conv2DParams>(sg.ops[0].params);
  EXPECT_EQ(conv.stride_w, 1);
  EXPECT_EQ(conv.dilation_h, 1);
  EXPECT_EQ(sg.inputs, std::vector<int32_t>{0});
  EXPECT_EQ(sg.outputs, std::vector<int32_t>{4});
}

TEST(TfliteReader, BuiltinCodeIsMaxOfBothFields) {
  TestModel m = small_conv_model();
  m.ops[1].builtin_code = 117;  // HARD_SWISH: the int8 field holds 117 too
  EXPECT_EQ(read_tflite_bytes(write_test_model(m), "m").main().ops[1].name(), "HARD_SWISH");
  m.ops[1].builtin_code = 150;  // beyond int8: deprecated field saturates at 127
  EXPECT_EQ(read_tflite_bytes(write_test_model(m), "m").main().ops[1].builtin_code, 150);
}

TEST(TfliteReader, RejectsWrongIdentifier) {
  auto bytes = write_test_model(small_conv_model());
  bytes[4] = 'X';
  EXPECT_NE(error_of(bytes).find("identifier"), std::string::npos) << error_of(bytes);
}

TEST(TfliteReader, RejectsTooShortFile) {
  EXPECT_NE(error_of({1, 2, 3}).find("too short"), std::string::npos);
}

TEST(TfliteReader, RejectsOutOfRangeTensorIndex) {
  TestModel m = small_conv_model();
  m.ops[1].inputs = {42};
  std::string e = error_of(write_test_model(m));
  EXPECT_NE(e.find("tensor 42"), std::string::npos) << e;
  EXPECT_NE(e.find("op 1"), std::string::npos) << e;
}

TEST(TfliteReader, RejectsOutOfRangeGraphInput) {
  TestModel m = small_conv_model();
  m.inputs = {-3};
  EXPECT_NE(error_of(write_test_model(m)).find("tensor -3"), std::string::npos);
}

TEST(TfliteReader, RejectsOutOfRangeOpcode) {
  TestModel m = small_conv_model();
  m.ops[0].opcode_index = 9;
  EXPECT_NE(error_of(write_test_model(m)).find("operator code 9"), std::string::npos);
}

TEST(TfliteReader, RejectsOutOfRangeBuffer) {
  TestModel m = small_conv_model();
  m.tensors[3].buffer = 1000;
  EXPECT_NE(error_of(write_test_model(m)).find("buffer 1000"), std::string::npos);
}

TEST(TfliteReader, RejectsOverflowingShape) {
  TestModel m = small_conv_model();
  m.tensors[3].shape = {65536, 65536, 65536, 8};
  std::string e = error_of(write_test_model(m));
  EXPECT_NE(e.find("'conv'"), std::string::npos) << e;
  EXPECT_NE(e.find("overflows"), std::string::npos) << e;
  m.tensors[3].shape = {1, 0x7fffffff, 1, 1};  // 8 GiB of float
  EXPECT_NE(error_of(write_test_model(m)).find("overflows"), std::string::npos);
}

TEST(TfliteReader, RejectsNegativeDimension) {
  TestModel m = small_conv_model();
  m.tensors[4].shape = {1, -8, 8, 8};
  EXPECT_NE(error_of(write_test_model(m)).find("negative dimension"), std::string::npos);
}

TEST(TfliteReader, RejectsConstantOfWrongSize) {
  TestModel m = small_conv_model();
  m.tensors[1].data.resize(100);
  EXPECT_NE(error_of(write_test_model(m)).find("holds 100"), std::string::npos);
}

TEST(TfliteReader, RejectsUnknownType) {
  TestModel m = small_conv_model();
  m.tensors[4].type = 77;
  EXPECT_NE(error_of(write_test_model(m)).find("unknown type 77"), std::string::npos);
}

TEST(TfliteReader, RejectsOpsOutOfOrder) {
  TestModel m = small_conv_model();
  std::swap(m.ops[0], m.ops[1]);
  std::string e = error_of(write_test_model(m));
  EXPECT_NE(e.find("execution order"), std::string::npos) << e;
}

TEST(TfliteReader, RejectsTensorWrittenTwice) {
  TestModel m = small_conv_model();
  m.ops[1].outputs = {3};
  m.ops[1].inputs = {0};
  EXPECT_NE(error_of(write_test_model(m)).find("again"), std::string::npos);
}

TEST(TfliteReader, RejectsNoSubgraphs) {
  TestModel m = small_conv_model();
  m.subgraph_count = 0;
  EXPECT_NE(error_of(write_test_model(m)).find("no subgraphs"), std::string::npos);
}

TEST(TfliteReader, RejectsZeroStride) {
  TestModel m = small_conv_model();
  m.ops[0].stride = 0;
  EXPECT_NE(error_of(write_test_model(m)).find("stride_w = 0"), std::string::npos);
}

TEST(TfliteReader, ReadsOfflinePlan) {
  TestModel m = small_conv_model();
  OfflinePlan plan{0, 1, {0, -1, -1, 256, 0}};
  m.metadata.push_back({kOfflinePlanMetadataName, encode_offline_plan(plan)});
  Graph g = read_tflite_bytes(write_test_model(m), "m");
  ASSERT_TRUE(g.offline_plan.has_value());
  EXPECT_EQ(g.offline_plan->offsets, plan.offsets);
  ASSERT_EQ(g.metadata.size(), 1u);
  EXPECT_EQ(g.metadata[0].name, kOfflinePlanMetadataName);
}

TEST(TfliteReader, RejectsOfflinePlanOfWrongLength) {
  TestModel m = small_conv_model();
  OfflinePlan plan{0, 1, {0, -1, -1}};
  m.metadata.push_back({kOfflinePlanMetadataName, encode_offline_plan(plan)});
  std::string e = error_of(write_test_model(m));
  EXPECT_NE(e.find("OfflineMemoryAllocation"), std::string::npos) << e;
  EXPECT_NE(e.find("3 tensor offsets"), std::string::npos) << e;
}

// A [long] vector's elements (zero points) may sit 4 bytes off their 8-byte
// alignment in a hostile file: the verifier checks only the length word's.
// Found by fuzz_tflite_reader as a misaligned int64 load (UBSan); here the
// whole file sits 4 bytes off an 8-byte boundary, which the verifier (it
// checks alignment from the file's start) accepts, so every zero point is
// misaligned. Under the sanitizers this failed before the fix.
TEST(TfliteReader, ReadsZeroPointsOffTheirAlignment) {
  GraphBuilder b("zero_points");
  const int32_t in = b.add_tensor("in", DataType::kInt8, {1, 4}, {{0.5f}, {-3}, 0});
  const int32_t out = b.add_tensor("out", DataType::kInt8, {1, 4}, {{0.5f}, {-3}, 0});
  b.add_op(OpKind::kRelu, {in}, {out});
  b.set_inputs({in});
  b.set_outputs({out});
  const std::vector<uint8_t> bytes = write_tflite(b.finish());
  std::vector<uint64_t> storage(bytes.size() / 8 + 2);
  uint8_t* const off_by_4 = reinterpret_cast<uint8_t*>(storage.data()) + 4;
  std::memcpy(off_by_4, bytes.data(), bytes.size());
  const Graph graph = read_tflite_bytes(std::span<const uint8_t>(off_by_4, bytes.size()), "model.tflite");
  EXPECT_EQ(graph.main().tensors[0].quantization.zero_point, std::vector<int64_t>{-3});
  EXPECT_EQ(graph.main().tensors[1].quantization.zero_point, std::vector<int64_t>{-3});
}

// Every truncation and many random byte flips must import or fail cleanly
// (this runs under ASan/UBSan in the sanitizer build).
TEST(TfliteReader, SurvivesTruncationAndFlippedBytes) {
  const auto bytes = write_test_model(small_conv_model());
  for (size_t len = 0; len < bytes.size(); ++len) {
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(len));
    EXPECT_FALSE(error_of(cut).empty()) << "truncated to " << len << " bytes was accepted";
  }
  std::mt19937 rng(1234);
  int rejected = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    auto damaged = bytes;
    int flips = 1 + trial % 4;
    for (int f = 0; f < flips; ++f) damaged[rng() % damaged.size()] ^= static_cast<uint8_t>(1 + rng() % 255);
    if (!error_of(damaged).empty()) ++rejected;
  }
  EXPECT_GT(rejected, 0);
}

}  // namespace
}  // namespace dmo

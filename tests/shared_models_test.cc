// Every real model in ../shared/models imports and plans; TFLM's planner
// figures are reproduced; every file in models/negative is refused.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <map>

#include "dmo/error.h"
#include "dmo/plan/plan_validator.h"
#include "dmo/plan/tflm_greedy_planner.h"
#include "dmo/report/plan_report.h"
#include "dmo/tflite/reader.h"
#include "test_support.h"

namespace dmo {
namespace {

using test::file_stem;
using test::tflite_files_in;

TEST(SharedModels, AllImportAndPlanValidly) {
  DMO_REQUIRE_SHARED(shared);
  auto files = tflite_files_in(shared + "/models");
  EXPECT_EQ(files.size(), 44u);
  for (const std::string& file : files) {
    SCOPED_TRACE(file);
    Graph graph = read_tflite_file(file);
    PlanResult report = plan_model(graph);
    EXPECT_TRUE(validate_plan(report.tflm_problem, report.tflm_greedy, kTflmBufferAlignment).empty());
    // An offline plan may put tensors live together in the same bytes, so
    // the bound holds for TFLM's planner without one.
    MemoryProblem without_plan = report.tflm_problem;
    for (BufferRequest& b : without_plan.buffers) b.fixed_offset.reset();
    EXPECT_GE(plan_tflm_greedy(without_plan).arena_size, report.lower_bound_bytes);
    EXPECT_LE(report.lower_bound_bytes, report.naive_bytes);
  }
}

// What TFLM's own GreedyMemoryPlanner gives (activations only).
TEST(SharedModels, TflmGreedyMatchesTflm) {
  DMO_REQUIRE_SHARED(shared);
  const std::map<std::string, int64_t> expected = {
      {"tiny_vww_96_int8", 73728},        {"tiny_vww_96_float", 294912},
      {"tiny_kws_ref_model_int8", 16000}, {"tiny_resnet8_int8", 49152},
      {"tiny_resnet8_float", 196608},     {"tiny_ad01_int8", 768},
      {"tiny_ad01_fp32", 3072},           {"tflm_person_detect_int8", 55296},
      {"tflm_micro_speech_int8", 5968},   {"tfls_mobilenet_v1_0.25_224_float", 1605632},
      {"tflm_simple_add", 49152},         {"litert_split", 12544},
      {"litert_multi_add", 3840},         {"litert_topo_sort_interleaved", 64}};
  for (const auto& [name, bytes] : expected) {
    SCOPED_TRACE(name);
    Graph graph = read_tflite_file(shared + "/models/" + name + ".tflite");
    EXPECT_EQ(plan_model(graph).tflm_greedy.arena_size, bytes);
  }
}

TEST(SharedModels, LowerBoundMatches) {
  DMO_REQUIRE_SHARED(shared);
  const std::map<std::string, int64_t> expected = {{"tiny_vww_96_int8", 55296},
                                                   {"tiny_vww_96_float", 221184},
                                                   {"tfls_mobilenet_v1_0.25_224_float", 1204224},
                                                   {"litert_topo_sort_interleaved", 48}};
  for (const auto& [name, bytes] : expected) {
    SCOPED_TRACE(name);
    Graph graph = read_tflite_file(shared + "/models/" + name + ".tflite");
    EXPECT_EQ(plan_model(graph).lower_bound_bytes, bytes);
  }
}

TEST(SharedModels, ReadsExistingOfflinePlan) {
  DMO_REQUIRE_SHARED(shared);
  Graph graph = read_tflite_file(shared + "/models/tflm_person_detect_vela_int8.tflite");
  ASSERT_TRUE(graph.offline_plan.has_value());
  EXPECT_EQ(graph.offline_plan->offsets.size(), graph.total_tensor_count());
}

TEST(SharedModels, NegativeFilesAreRefusedWithAMessage) {
  DMO_REQUIRE_SHARED(shared);
  auto files = tflite_files_in(shared + "/models/negative");
  EXPECT_EQ(files.size(), 14u);
  for (const std::string& file : files) {
    SCOPED_TRACE(file);
    try {
      read_tflite_file(file);
      ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(file_stem(file)), std::string::npos) << e.what();
    }
  }
}

// Valid models that look broken: LiteRT loads both (an empty model, and the
// input of a graph-partitioning test whose ops are in a valid execution order).
TEST(SharedModels, EmptyModelAndForkViolationImport) {
  DMO_REQUIRE_SHARED(shared);
  Graph empty = read_tflite_file(shared + "/models/litert_empty_model.tflite");
  EXPECT_TRUE(empty.main().ops.empty());
  EXPECT_EQ(plan_model(empty).tflm_greedy.arena_size, 0);
  Graph fork = read_tflite_file(shared + "/models/litert_topo_sort_fork_violation.tflite");
  EXPECT_EQ(fork.main().ops.size(), 5u);
  EXPECT_EQ(plan_model(fork).tflm_greedy.arena_size, 48);
}

// Real models cut short or with flipped bytes: import or a clean error.
TEST(SharedModels, DamagedRealModelsFailCleanly) {
  DMO_REQUIRE_SHARED(shared);
  for (const char* name : {"tflm_micro_speech_int8", "litert_multi_subgraphs_while", "tiny_ad01_int8"}) {
    std::string path = shared + "/models/" + name + ".tflite";
    std::ifstream in(path, std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_FALSE(bytes.empty());
    uint32_t state = 2463534242u;
    auto next = [&] {
      state ^= state << 13;
      state ^= state >> 17;
      state ^= state << 5;
      return state;
    };
    for (int trial = 0; trial < 300; ++trial) {
      std::vector<uint8_t> damaged = bytes;
      if (trial % 3 == 0) {
        damaged.resize(next() % bytes.size());
      } else {
        for (int f = 0; f < 1 + trial % 5; ++f) damaged[next() % damaged.size()] = static_cast<uint8_t>(next());
      }
      try {
        read_tflite_bytes(damaged, name);
      } catch (const Error&) {
      }
    }
  }
}

}  // namespace
}  // namespace dmo

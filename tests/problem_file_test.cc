// Problem files: what `dmo plan --dump-problem` writes, `dmo solve` plans to
// the same arena, and bad files are refused with one line naming the file.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "dmo/error.h"
#include "dmo/plan/problem_file.h"
#include "test_support.h"

namespace dmo {
namespace {

namespace fs = std::filesystem;
using test::run_dmo;

std::string temp_path(const std::string& name) {
  return (fs::temp_directory_path() / ("dmo_problem_" + std::to_string(::getpid()) + "_" + name)).string();
}

// The message parse_problem_json throws, or "" when it accepts the text.
std::string refusal(const std::string& text) {
  try {
    parse_problem_json(text, "p.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

const char* const kGood = R"({"op_count": 2,
  "buffers": [{"id": 1, "size": 64, "first_use": 0, "last_use": 1, "alignment": 32},
              {"id": 0, "size": 48, "first_use": -1, "last_use": 0, "fixed_offset": 64, "tensor": 7},
              {"id": 2, "size": 16, "first_use": 1, "last_use": 1}],
  "aliases": [{"buffer": 2, "base": 1, "offset": 32}],
  "overlaps": [{"op": 0, "output_buffer": 1, "input_buffer": 0, "safe_overlap": 16}]})";

TEST(ProblemFile, ParsesEveryFieldAndWritesThemBack) {
  MemoryProblem p = parse_problem_json(kGood, "p.json");
  ASSERT_EQ(p.buffers.size(), 3u);
  EXPECT_EQ(p.op_count, 2);
  EXPECT_EQ(p.buffers[0].tensor, 7);
  EXPECT_EQ(p.buffers[0].fixed_offset, 64);
  EXPECT_EQ(p.buffers[1].alignment, 32);
  EXPECT_EQ(p.buffers[1].tensor, 1);
  EXPECT_EQ(p.buffers[0].lifetime.first, -1);
  ASSERT_EQ(p.aliases.size(), 1u);
  EXPECT_EQ(p.aliases[0].offset, 32);
  ASSERT_EQ(p.overlaps.size(), 1u);
  EXPECT_EQ(p.overlaps[0].safe_overlap, 16);
  EXPECT_EQ(p.overlaps[0].safe_overlap_descending, 0);
  MemoryProblem again = parse_problem_json(problem_json(p), "again.json");
  EXPECT_EQ(problem_json(again), problem_json(p));
}

TEST(ProblemFile, RefusesBadFilesNamingTheProblem) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"not json", "not a JSON problem file"},
      {"[]", "the problem is not a JSON object"},
      {R"({"buffers": []})", "has no \"op_count\""},
      {R"({"op_count": 1})", "has no \"buffers\""},
      {R"({"op_count": 1, "buffers": [{"id": 0, "size": 8, "first_use": 0}]})", "buffer 0 has no \"last_use\""},
      {R"({"op_count": 1, "buffers": [{"id": 0, "size": -8, "first_use": 0, "last_use": 0}]})",
       "buffer 0 has negative size -8"},
      {R"({"op_count": 2, "buffers": [{"id": 0, "size": 8, "first_use": 1, "last_use": 0}]})",
       "buffer 0 has first_use 1 after last_use 0"},
      {R"({"op_count": 1, "buffers": [{"id": 3, "size": 8, "first_use": 0, "last_use": 0}]})",
       "\"id\" 3 is not a buffer index (0..0)"},
      {R"({"op_count": 1, "buffers": [{"id": 0, "size": 8.5, "first_use": 0, "last_use": 0}]})",
       "\"size\" is not an integer"},
      {R"({"op_count": 1, "buffers": [{"id": 0, "size": 8, "first_use": 0, "last_use": 0, "fixed_ofset": 0}]})",
       "unknown field \"fixed_ofset\""},
      {R"({"op_count": 1, "buffers": [{"id": 0, "size": 8, "first_use": 0, "last_use": 0, "alignment": 12}]})",
       "alignment 12, not a power of two"},
      {R"({"op_count": 1, "buffers": [{"id": 0, "size": 8, "first_use": 0, "last_use": 0},
                                      {"id": 1, "size": 8, "first_use": 0, "last_use": 0}],
          "aliases": [{"buffer": 0, "base": 1, "offset": 0}, {"buffer": 1, "base": 0, "offset": 0}]})",
       "alias cycle"},
      {R"({"op_count": 1, "buffers": [{"id": 0, "size": 8, "first_use": 0, "last_use": 0}],
          "overlaps": [{"op": 0, "output_buffer": 0, "input_buffer": 4, "safe_overlap": 0}]})",
       "overlap pair 0 \"input_buffer\" 4 is not a buffer index"},
      {R"({"op_count": 1, "buffers": [{"id": 0, "size": 8, "first_use": 0, "last_use": 0},
                                      {"id": 1, "size": 8, "first_use": 0, "last_use": 0}],
          "overlaps": [{"op": 5, "output_buffer": 0, "input_buffer": 1, "safe_overlap": 0}]})",
       "\"op\" 5 is not a op index"},
  };
  for (const auto& [text, expected] : cases) {
    std::string message = refusal(text);
    EXPECT_NE(message.find("p.json: "), std::string::npos) << text;
    EXPECT_NE(message.find(expected), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
  EXPECT_EQ(refusal(kGood), "");
}

// `dmo solve` on the problem `dmo plan --split none` dumps gives `dmo plan`'s
// dmo_bytes (and TFLM's greedy figure, which is for the unsplit model).
void expect_round_trip(const std::string& model) {
  SCOPED_TRACE(model);
  const std::string path = temp_path(fs::path(model).stem().string() + ".json");
  auto plan = run_dmo({"plan", model, "--json", "--split", "none", "--dump-problem", path});
  ASSERT_EQ(plan.exit_status, 0) << plan.err;
  auto solve = run_dmo({"solve", path, "--json"});
  ASSERT_EQ(solve.exit_status, 0) << solve.err;
  const auto planned = nlohmann::json::parse(plan.out), solved = nlohmann::json::parse(solve.out);
  EXPECT_EQ(solved["arena_bytes"], planned["dmo_bytes"]);
  EXPECT_EQ(solved["descending_ops"], planned["descending_ops"]);
  auto greedy = run_dmo({"solve", path, "--planner", "tflm_greedy", "--json"});
  ASSERT_EQ(greedy.exit_status, 0) << greedy.err;
  if (!planned["has_offline_plan"].get<bool>()) {
    EXPECT_EQ(nlohmann::json::parse(greedy.out)["arena_bytes"], planned["tflm_greedy_bytes"]);
  }
  fs::remove(path);
}

TEST(ProblemFile, RoundTripOfTheZooModel) { expect_round_trip("mobilenet_v1_0.25_128_int8"); }

TEST(ProblemFile, RoundTripOfSharedModels) {
  DMO_REQUIRE_SHARED(shared);
  for (const char* name : {"tiny_kws_ref_model_int8", "tiny_vww_96_int8", "tflm_micro_speech_int8",
                           "litert_mobilenet_like_model", "coral_split_concat", "tiny_resnet8_int8"}) {
    expect_round_trip(shared + "/models/" + name + ".tflite");
  }
}

}  // namespace
}  // namespace dmo

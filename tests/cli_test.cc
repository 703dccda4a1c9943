// The dmo command line end to end: exit codes, messages and JSON keys.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_support.h"
#include "tflite_test_model.h"

#include <filesystem>
#include <algorithm>
#include <fstream>

namespace dmo {
namespace {

using test::run_dmo;

TEST(Cli, PlanDefaultZooModelAsJson) {
  auto r = run_dmo({"plan", "--json", "--split", "none"});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  for (const char* key : {"naive_bytes", "tflm_greedy_bytes", "lower_bound_bytes", "ops", "tensors"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["model"], "mobilenet_v1_0.25_128_int8");
  // The pointwise conv 64x64x8 -> 64x64x16 is the int8 model's peak.
  EXPECT_EQ(j["lower_bound_bytes"], 98304);
  EXPECT_GE(j["tflm_greedy_bytes"].get<int64_t>(), 98304);
}

TEST(Cli, PlanTextShowsFiguresAndPeak) {
  auto r = run_dmo({"plan"});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_NE(r.out.find("tflm_greedy"), std::string::npos);
  EXPECT_NE(r.out.find("lower_bound"), std::string::npos);
  EXPECT_NE(r.out.find("<- peak"), std::string::npos);
}

TEST(Cli, InfoListsTensors) {
  auto r = run_dmo({"info", "mobilenet_v2_0.35_96_float32", "--json"});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["subgraphs"].size(), 1u);
  EXPECT_EQ(j["subgraphs"][0]["tensors"][0]["shape"], nlohmann::json({1, 96, 96, 3}));
}

TEST(Cli, MissingFileIsExit2) {
  auto r = run_dmo({"plan", "/nonexistent/model.tflite"});
  EXPECT_EQ(r.exit_status, 2);
  EXPECT_NE(r.err.find("no such file"), std::string::npos) << r.err;
}

TEST(Cli, BadUsageIsExit2) {
  EXPECT_EQ(run_dmo({"plan", "--no-such-flag"}).exit_status, 2);
  EXPECT_EQ(run_dmo({}).exit_status, 2);
}

TEST(Cli, BrokenFileIsExit2WithMessage) {
  auto bytes = test::write_test_model(test::small_conv_model());
  bytes.resize(bytes.size() / 2);
  auto path = (std::filesystem::temp_directory_path() / "dmo_cli_truncated.tflite").string();
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                              static_cast<std::streamsize>(bytes.size()));
  auto r = run_dmo({"plan", path});
  std::filesystem::remove(path);
  EXPECT_EQ(r.exit_status, 2);
  EXPECT_NE(r.err.find("dmo_cli_truncated.tflite"), std::string::npos) << r.err;
}

TEST(Cli, EveryNegativeModelIsExit2) {
  DMO_REQUIRE_SHARED(shared);
  for (const auto& file : test::tflite_files_in(shared + "/models/negative")) {
    auto r = run_dmo({"plan", file});
    EXPECT_EQ(r.exit_status, 2) << file << ": " << r.out << r.err;
    EXPECT_NE(r.err.find("dmo: error: "), std::string::npos) << file << ": " << r.err;
    // One clear message: a single line.
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

TEST(Cli, EverySharedModelPlansAsJson) {
  DMO_REQUIRE_SHARED(shared);
  for (const auto& file : test::tflite_files_in(shared + "/models")) {
    auto r = run_dmo({"plan", file, "--json"});
    ASSERT_EQ(r.exit_status, 0) << file << ": " << r.err;
    auto j = nlohmann::json::parse(r.out);
    // An offline plan may put tensors live together in the same bytes.
    if (j["has_offline_plan"].get<bool>()) {
      EXPECT_GT(j["offline_planned_tensors"].get<int32_t>(), 0) << file;
    } else {
      EXPECT_LE(j["lower_bound_bytes"].get<int64_t>(), j["tflm_greedy_bytes"].get<int64_t>()) << file;
    }
  }
}

// Writes `text` to a temporary problem file and runs `dmo solve` on it.
test::CommandResult solve_text(const std::string& name, const std::string& text,
                               std::vector<std::string> extra = {}) {
  auto path = (std::filesystem::temp_directory_path() / ("dmo_cli_solve_" + name + ".json")).string();
  std::ofstream(path) << text;
  std::vector<std::string> args = {"solve", path};
  args.insert(args.end(), extra.begin(), extra.end());
  auto r = run_dmo(args);
  std::filesystem::remove(path);
  return r;
}

TEST(Cli, SolvePrintsTheArenaAndOffsets) {
  const std::string problem = R"({"op_count": 1, "buffers": [
      {"id": 0, "size": 24, "first_use": 0, "last_use": 0},
      {"id": 1, "size": 32, "first_use": 0, "last_use": 0, "alignment": 64}]})";
  auto r = solve_text("ok", problem, {"--alignment", "4", "--json"});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["arena_bytes"], 64);  // 32 + 24 bytes, the 24 counted as TFLM rounds it: 32
  EXPECT_EQ(j["offsets"], nlohmann::json({32, 0}));
  auto greedy = solve_text("greedy", problem, {"--planner", "tflm_greedy"});
  ASSERT_EQ(greedy.exit_status, 0) << greedy.err;
  EXPECT_NE(greedy.out.find("64 arena bytes (tflm_greedy)"), std::string::npos) << greedy.out;
}

TEST(Cli, SolveRefusesBadFilesWithOneLine) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"not_json", "{ nope"},
      {"missing", R"({"op_count": 1, "buffers": [{"id": 0, "size": 8, "last_use": 0}]})"},
      {"negative", R"({"op_count": 1, "buffers": [{"id": 0, "size": -1, "first_use": 0, "last_use": 0}]})"},
      {"first_after_last", R"({"op_count": 2, "buffers": [{"id": 0, "size": 8, "first_use": 1, "last_use": 0}]})"},
      {"id_range", R"({"op_count": 1, "buffers": [{"id": 1, "size": 8, "first_use": 0, "last_use": 0}]})"},
      {"cycle", R"({"op_count": 1, "buffers": [{"id": 0, "size": 8, "first_use": 0, "last_use": 0}],
                   "aliases": [{"buffer": 0, "base": 0, "offset": 0}]})"},
  };
  for (const auto& [name, text] : cases) {
    auto r = solve_text(name, text);
    EXPECT_EQ(r.exit_status, 2) << name << ": " << r.out << r.err;
    EXPECT_NE(r.err.find("dmo: error: "), std::string::npos) << name << ": " << r.err;
    EXPECT_NE(r.err.find("dmo_cli_solve_" + name + ".json: "), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  auto missing = run_dmo({"solve", "/nonexistent/problem.json"});
  EXPECT_EQ(missing.exit_status, 2);
  EXPECT_NE(missing.err.find("cannot open"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace dmo

// Plan files, problem files and paths that are wrong in ways that once
// crashed dmo or ran it out of memory: each is exit 2 with one line naming
// the file and the problem.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "test_support.h"
#include "tflite_test_model.h"

namespace dmo {
namespace {

using test::run_dmo;

constexpr const char* kModel = "mobilenet_v1_0.25_96_int8";

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("dmo_bad_" + std::to_string(::getpid()) + "_" + name)).string();
}

// dmo's own unsplit plan of the zoo model as a plan file.
nlohmann::json own_plan() {
  auto plan = nlohmann::json::parse(run_dmo({"plan", kModel, "--json", "--split", "none"}).out);
  nlohmann::json offsets = nlohmann::json::array();
  for (const auto& t : plan["tensors"]) offsets.push_back(t.contains("dmo_offset") ? t["dmo_offset"] : nlohmann::json(-1));
  return {{"arena_bytes", plan["dmo_bytes"]}, {"offsets", offsets}, {"descending_ops", plan["descending_ops"]}};
}

void expect_one_line_exit_2(const test::CommandResult& r, const std::string& file, const std::string& problem) {
  EXPECT_EQ(r.exit_status, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(file), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(problem), std::string::npos) << r.err;
}

TEST(CliBadFiles, PlanFileOffsetsAndArenaOutOfRangeAreRefusedNamingTheFile) {
  const nlohmann::json good = own_plan();
  const std::string file = temp_path("plan.json");
  auto verify_with = [&](const nlohmann::json& plan) {
    std::ofstream(file) << plan.dump();
    return run_dmo({"verify", kModel, "--plan", file});
  };
  EXPECT_EQ(verify_with(good).exit_status, 0);

  nlohmann::json plan = good;
  plan["offsets"][0] = INT64_MAX;  // once overflowed the bounds check and wrote out of bounds
  expect_one_line_exit_2(verify_with(plan), file, "offset of tensor 0 9223372036854775807 is above 2147483647");
  plan = good;
  plan["arena_bytes"] = int64_t{1} << 34;  // once tried to allocate 16 GiB
  expect_one_line_exit_2(verify_with(plan), file, "arena_bytes 17179869184 is above 2147483647");
  plan["arena_bytes"] = UINT64_MAX;
  expect_one_line_exit_2(verify_with(plan), file, "arena_bytes 18446744073709551615 is above");
  plan["arena_bytes"] = -16;
  expect_one_line_exit_2(verify_with(plan), file, "arena_bytes -16 is outside 0..2147483647");
  plan = good;
  plan["offsets"][0] = good["arena_bytes"];
  expect_one_line_exit_2(verify_with(plan), file, "does not fit in arena_bytes");
  plan = good;
  // Beyond uint64: a float to the JSON parser, once converted to int64 (undefined; found by fuzz_plan_file).
  plan["split"] = nlohmann::json::parse(
      R"([{"ops": [0, 4], "axis": "height and width", "tiles": 2, "column_tiles": 92233720368547758075}])");
  expect_one_line_exit_2(verify_with(plan), file, "is not an integer");
  plan = good;
  plan["descending_ops"] = {1 << 20};
  expect_one_line_exit_2(verify_with(plan), file, "descending op 1048576 is above");
  std::filesystem::remove(file);
}

// Found by the mutation sweep (one flipped byte of a shared MobileNet made a
// depthwise filter a scalar): the closed-form O_s read the filter's height
// and width past its shape and crashed `dmo plan`. A conv and a depthwise
// conv whose filters are scalars now plan or are refused with one line.
TEST(CliBadFiles, ConvFiltersOfTheWrongRankAreNoCrash) {
  const std::string file = temp_path("scalar_filter.tflite");
  for (int32_t code : {3, 4}) {  // CONV_2D, DEPTHWISE_CONV_2D
    test::TestModel m;
    m.tensors = {{"input", 0, {1, 4, 4, 2}, {}},
                 {"filter", 0, {}, std::vector<uint8_t>(4, 0)},
                 {"output", 0, {1, 4, 4, 2}, {}}};
    m.ops = {{code, {0, 1, -1}, {2}}};
    m.inputs = {0};
    m.outputs = {2};
    const std::vector<uint8_t> bytes = test::write_test_model(m);
    std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                                static_cast<std::streamsize>(bytes.size()));
    for (const char* overlap : {"analytic", "algorithmic"}) {
      const test::CommandResult r = run_dmo({"plan", file, "--split", "none", "--overlap", overlap});
      EXPECT_TRUE(r.exit_status == 0 || r.exit_status == 2) << code << " " << overlap << ": " << r.err;
      if (r.exit_status == 2) {
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
      }
    }
  }
  std::filesystem::remove(file);
}

TEST(CliBadFiles, DirectoriesGivenAsFilesAreRefusedNamingThem) {
  const std::string dir = temp_path("dir");
  std::filesystem::create_directories(dir);
  expect_one_line_exit_2(run_dmo({"verify", kModel, "--plan", dir}), dir, "is a directory");
  expect_one_line_exit_2(run_dmo({"run", kModel, "--input", dir}), dir, "is a directory");
  expect_one_line_exit_2(run_dmo({"solve", dir}), dir, "is a directory");
  const std::string file = temp_path("plain_file");
  std::ofstream(file) << "x";
  const std::string under_file = file + "/tensors";
  expect_one_line_exit_2(run_dmo({"run", kModel, "--dump-tensors", under_file}), under_file,
                         "cannot create the directory");
  std::filesystem::remove(file);
  std::filesystem::remove_all(dir);
}

TEST(CliBadFiles, ProblemFileSizesOffsetsAndAliasesOutOfRangeAreRefused) {
  const std::string file = temp_path("problem.json");
  auto solve = [&](const nlohmann::json& problem) {
    std::ofstream(file) << problem.dump();
    return run_dmo({"solve", file});
  };
  const nlohmann::json good = {
      {"op_count", 2},
      {"buffers", {{{"id", 0}, {"size", 64}, {"first_use", 0}, {"last_use", 1}},
                   {{"id", 1}, {"size", 32}, {"first_use", 0}, {"last_use", 1}}}}};
  EXPECT_EQ(solve(good).exit_status, 0);
  nlohmann::json p = good;
  p["buffers"][0]["size"] = INT64_MAX;  // once planned and validated as fine
  expect_one_line_exit_2(solve(p), file, "above the 2147483647-byte limit");
  p = good;
  p["buffers"][0]["fixed_offset"] = INT64_MAX - 15;
  expect_one_line_exit_2(solve(p), file, "would end beyond the 2147483647-byte limit");
  p = good;
  p["aliases"] = {{{"buffer", 1}, {"base", 0}, {"offset", -16}}};
  expect_one_line_exit_2(solve(p), file, "must lie inside buffer 0");
  p["aliases"] = {{{"buffer", 1}, {"base", 0}, {"offset", 48}}};  // 48 + 32 > 64
  expect_one_line_exit_2(solve(p), file, "must lie inside buffer 0");
  p["aliases"] = {{{"buffer", 1}, {"base", 0}, {"offset", 32}}};
  EXPECT_EQ(solve(p).exit_status, 0);
  std::filesystem::remove(file);
}

}  // namespace
}  // namespace dmo

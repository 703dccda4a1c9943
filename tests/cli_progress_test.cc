// Progress on stderr: only with --progress when stderr is not a terminal
// (as here), at most one line per tenth of the way, ending with the total,
// and never changing what the command prints on stdout.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.h"

namespace dmo {
namespace {

using test::run_dmo;

constexpr const char* kModel = "mobilenet_v1_0.25_96_int8";

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(CliProgress, PlanTellsTheSafeOverlapsFoundOnlyWhenAsked) {
  const auto quiet = run_dmo({"plan", kModel, "--json"});
  ASSERT_EQ(quiet.exit_status, 0) << quiet.err;
  EXPECT_EQ(quiet.err, "");
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"plan", kModel, "--json", "--progress"},
        std::vector<std::string>{"--progress", "plan", kModel, "--json"}}) {
    const auto told = run_dmo(args);
    ASSERT_EQ(told.exit_status, 0) << told.err;
    EXPECT_EQ(told.out, quiet.out);
    const std::vector<std::string> lines = lines_of(told.err);
    ASSERT_GE(lines.size(), 2u) << told.err;
    EXPECT_LE(lines.size(), 10u) << told.err;
    const std::regex line(R"(dmo: plan: safe overlaps (\d+)/(\d+) op walks)");
    std::smatch last;
    for (const std::string& l : lines) EXPECT_TRUE(std::regex_match(l, line)) << l;
    ASSERT_TRUE(std::regex_match(lines.back(), last, line));
    EXPECT_EQ(last[1].str(), last[2].str()) << "the last line tells the whole";
  }
}

TEST(CliProgress, RunTellsPlanningAndEachTenthOfTheOps) {
  const auto told = run_dmo({"run", kModel, "--progress"});
  ASSERT_EQ(told.exit_status, 0) << told.err;
  EXPECT_EQ(told.out, run_dmo({"run", kModel}).out);
  EXPECT_NE(told.err.find("dmo: run: planning: safe overlaps "), std::string::npos) << told.err;
  EXPECT_NE(told.err.find("dmo: run: running op 31/31\n"), std::string::npos) << told.err;
  EXPECT_EQ(run_dmo({"run", kModel}).err, "");
}

TEST(CliProgress, VerifyAndExportTellTheirSlowSteps) {
  const auto verify = run_dmo({"verify", kModel, "--progress"});
  ASSERT_EQ(verify.exit_status, 0) << verify.err;
  EXPECT_EQ(verify.out, run_dmo({"verify", kModel}).out);
  EXPECT_NE(verify.err.find("dmo: verify: planning: safe overlaps "), std::string::npos) << verify.err;
  EXPECT_NE(verify.err.find("dmo: verify: running unshared and inside the plan"), std::string::npos) << verify.err;
  EXPECT_NE(verify.err.find("dmo: verify: validating: safe overlaps "), std::string::npos) << verify.err;
  EXPECT_EQ(run_dmo({"verify", kModel}).err, "");
  const std::string header = std::filesystem::temp_directory_path() / "dmo_progress_test_plan.h";
  const auto exported = run_dmo({"export", kModel, "--json", "--c-header", header, "--progress"});
  std::filesystem::remove(header);
  ASSERT_EQ(exported.exit_status, 0) << exported.err;
  EXPECT_NE(exported.err.find("dmo: export: planning: safe overlaps "), std::string::npos) << exported.err;
}

}  // namespace
}  // namespace dmo

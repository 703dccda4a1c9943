// dmo against what TFLM measured (../shared/golden/TFLM-ARENA.tsv), on every
// shared model TFLM runs: `dmo run --seed 1` gives TFLM's outputs, and
// `dmo export` gives per kernel family TFLM's head without the export (the
// file's columns) and with it, recomputed here from the written file by
// TFLM's rules: its offline offsets taken as given, the rest (the family's
// scratch buffers among them) placed by TFLM's greedy first fit.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include "dmo/pipeline/kernel_scratch_buffers.h"
#include "dmo/pipeline/plan_pipeline.h"
#include "dmo/plan/tflm_greedy_planner.h"
#include "dmo/tflite/reader.h"
#include "test_support.h"

namespace dmo {
namespace {

// One row of TFLM-ARENA.tsv for a model TFLM runs.
struct TflmArenaRow {
  std::string model;
  std::map<std::string, int64_t> head;  // per family name
  std::string outputs_fnv1a64;
};

std::vector<TflmArenaRow> tflm_arena_rows(const std::string& shared) {
  std::ifstream in(shared + "/golden/TFLM-ARENA.tsv");
  std::vector<TflmArenaRow> rows;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream fields(line);
    for (std::string cell; std::getline(fields, cell, '\t');) cells.push_back(cell);
    if (cells.size() < 7 || cells[1] != "yes") continue;
    TflmArenaRow row;
    row.model = cells[0];
    // An empty column: that build refuses the model (CMSIS-NN's ADD takes
    // no int8 inputs with a float32 output).
    const std::array<std::pair<const char*, size_t>, 3> columns = {
        {{"tflm-reference", 2}, {"cmsis-nn", 4}, {"cmsis-nn-dsp", 5}}};
    for (const auto& [family, column] : columns) {
      if (!cells[column].empty()) row.head[family] = std::stoll(cells[column]);
    }
    row.outputs_fnv1a64 = cells[6];
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string scratch_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("dmo_heads_" + std::to_string(::getpid()) + "_" + name)).string();
}

TEST(TflmArena, RunGivesTflmsOutputsOnEveryModelItRuns) {
  DMO_REQUIRE_SHARED(shared);
  const std::vector<TflmArenaRow> rows = tflm_arena_rows(shared);
  ASSERT_GE(rows.size(), 37u);
  for (const TflmArenaRow& row : rows) {
    SCOPED_TRACE(row.model);
    const test::CommandResult r =
        test::run_dmo({"run", shared + "/models/" + row.model + ".tflite", "--seed", "1", "--json"});
    ASSERT_EQ(r.exit_status, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["outputs_fnv1a64"], row.outputs_fnv1a64);
  }
}

TEST(TflmArena, ExportGivesTflmsHeadPerKernelFamilyWithAndWithoutThePlan) {
  DMO_REQUIRE_SHARED(shared);
  const std::vector<TflmArenaRow> rows = tflm_arena_rows(shared);
  ASSERT_GE(rows.size(), 37u);
  int lower = 0;
  for (const TflmArenaRow& row : rows) {
    SCOPED_TRACE(row.model);
    const std::string out = scratch_path(row.model + ".tflite");
    const test::CommandResult r =
        test::run_dmo({"export", shared + "/models/" + row.model + ".tflite", "-o", out, "--json"});
    ASSERT_EQ(r.exit_status, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    const Graph exported = read_tflite_file(out);
    std::filesystem::remove(out);
    ASSERT_EQ(j["heads"].size(), 3u);
    int64_t largest = 0;
    for (const nlohmann::json& head : j["heads"]) {
      const std::string name = head["kernels"];
      const KernelFamily family = *kernel_family_named(name);
      const int64_t with = head["with"], without = head["without"];
      largest = std::max(largest, with);
      if (!row.head.count(name)) continue;  // TFLM does not run the model with these kernels
      EXPECT_EQ(without, row.head.at(name)) << name;
      // TFLM's rules on the file as written: its offline offsets fixed,
      // everything else planned around them.
      const MemoryProblem tflm = tflm_problem_with_scratch(exported, kernel_scratch_buffers(exported, family));
      EXPECT_EQ(with, plan_tflm_greedy(tflm).arena_size) << name;
      const bool warned = r.err.find(fmt::format("with {} kernels TFLM needs {} bytes with this plan", name, with)) !=
                          std::string::npos;
      EXPECT_EQ(warned, with > without) << name << ": " << r.err;
      lower += with < without;
    }
    EXPECT_EQ(j["arena_bytes"], largest);
  }
  std::printf("[ heads    ] %d of %zu family heads are lower with the export\n", lower, rows.size() * 3);
}

}  // namespace
}  // namespace dmo

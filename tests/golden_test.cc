// dmo's kernels against TFLite Micro's: every tensor of every golden model,
// byte for byte (FNV-1a 64 checksums), seeds 1 and 2. The model runs twice:
// unshared (every tensor kept) and inside TFLM's greedy arena, where each
// op's outputs are checked right after the op, before anything reuses them.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <fstream>
#include <map>
#include <sstream>

#include "dmo/error.h"
#include "dmo/plan/tflm_greedy_planner.h"
#include "dmo/runtime/interpreter.h"
#include "dmo/tflite/reader.h"
#include "test_support.h"

namespace dmo {
namespace {

struct GoldenRow {
  int32_t tensor = 0;
  std::string name;
  int64_t bytes = 0;
  std::string fnv;
  int32_t first_op = 0;
};

struct GoldenCase {
  std::string model;
  int seed = 0;
};

std::vector<GoldenCase> golden_cases() {
  std::vector<GoldenCase> cases;
  auto dir = test::shared_dir();
  if (!dir) return cases;
  std::ifstream index(*dir + "/golden/INDEX.tsv");
  std::string line;
  std::getline(index, line);  // header
  while (std::getline(index, line)) {
    std::stringstream fields(line);
    std::string model, seed, status;
    std::getline(fields, model, '\t');
    std::getline(fields, seed, '\t');
    std::getline(fields, status, '\t');
    if (status == "ok") cases.push_back({model, std::stoi(seed)});
  }
  return cases;
}

std::vector<GoldenRow> read_rows(const std::string& path) {
  std::vector<GoldenRow> rows;
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string field;
    while (std::getline(ss, field, '\t')) f.push_back(field);
    if (f.size() < 7) continue;
    rows.push_back({std::stoi(f[0]), f[1], std::stoll(f[4]), f[5], std::stoi(f[6])});
  }
  return rows;
}

void PrintTo(const GoldenCase& c, std::ostream* os) { *os << c.model << " seed " << c.seed; }

class Golden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(Golden, EveryTensorMatchesTflm) {
  DMO_REQUIRE_SHARED(shared);
  const GoldenCase& c = GetParam();
  const std::string stem = fmt::format("{}/golden/{}.s{}", shared, c.model, c.seed);
  Graph graph = read_tflite_file(shared + "/models/" + c.model + ".tflite");
  std::vector<uint8_t> input = test::read_file(stem + ".in");
  std::vector<GoldenRow> rows = read_rows(stem + ".tsv");
  ASSERT_FALSE(rows.empty());
  std::map<int32_t, const GoldenRow*> by_tensor;
  for (const GoldenRow& row : rows) by_tensor[row.tensor] = &row;

  // Unshared: every tensor survives to the end; report the earliest op whose output differs.
  Interpreter unshared(graph, unshared_placement(graph.main()));
  unshared.set_inputs(input);
  unshared.run();
  const GoldenRow* first_bad = nullptr;
  for (const GoldenRow& row : rows) {
    std::string got = test::fnv1a64_hex(unshared.tensor_bytes(row.tensor));
    if (got != row.fnv && (!first_bad || row.first_op < first_bad->first_op)) first_bad = &row;
  }
  if (first_bad) {
    std::string op_name = first_bad->first_op >= 0
                              ? graph.main().ops[static_cast<size_t>(first_bad->first_op)].name()
                              : std::string("model input");
    FAIL() << "first difference: tensor " << first_bad->tensor << " '" << first_bad->name << "' written by op "
           << first_bad->first_op << " (" << op_name << ")";
  }

  // Inside TFLM's arena: check each op's outputs as soon as it has run.
  MemoryProblem problem = build_memory_problem(graph.main());
  Interpreter shared_arena(graph, placement_from_plan(graph.main(), problem, plan_tflm_greedy(problem)));
  shared_arena.set_inputs(input);
  shared_arena.run([&](int32_t op) {
    for (int32_t t : graph.main().ops[static_cast<size_t>(op)].outputs) {
      auto it = by_tensor.find(t);
      if (it == by_tensor.end()) continue;
      EXPECT_EQ(test::fnv1a64_hex(shared_arena.tensor_bytes(t)), it->second->fnv)
          << "in TFLM's arena: op " << op << " output tensor " << t;
    }
  });
}

std::string case_name(const ::testing::TestParamInfo<GoldenCase>& info) {
  std::string name = info.param.model + "_s" + std::to_string(info.param.seed);
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Tflm, Golden, ::testing::ValuesIn(golden_cases()), case_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Golden);

TEST(GoldenFiles, ArePresent) {
  DMO_REQUIRE_SHARED(shared);
  EXPECT_EQ(golden_cases().size(), 48u);
}

}  // namespace
}  // namespace dmo

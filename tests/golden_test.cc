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

using GoldenRow = test::GoldenTensor;
using test::GoldenCase;
using test::golden_cases;

class Golden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(Golden, EveryTensorMatchesTflm) {
  DMO_REQUIRE_SHARED(shared);
  const GoldenCase& c = GetParam();
  const std::string stem = c.stem(shared);
  Graph graph = read_tflite_file(shared + "/models/" + c.model + ".tflite");
  std::vector<uint8_t> input = test::read_file(stem + ".in");
  std::vector<GoldenRow> rows = test::read_golden_tensors(stem + ".tsv");
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

// dmo's kernels against TFLite Micro's: every tensor of every golden model,
// byte for byte (FNV-1a 64 checksums), seeds 1 and 2. The model runs twice:
// unshared (every tensor kept) and inside TFLM's greedy arena, where each
// op's outputs are checked right after the op, before anything reuses them.
// A model with an op dmo has no kernel for is skipped, naming that op.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <span>
#include <sstream>
#include <unistd.h>

#include "dmo/error.h"
#include "dmo/model/lifetime.h"
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
  std::optional<test::MissingKernel> missing;
  try {
    unshared.run();
  } catch (const Error& e) {
    // Only a missing kernel skips; any other refusal fails the test.
    missing = test::missing_kernel(e.what());
    if (!missing) throw;
  }
  // When an op has no kernel, the tensors written before it are still checked.
  const int32_t ran_ops = missing ? missing->op : static_cast<int32_t>(graph.main().ops.size());
  const GoldenRow* first_bad = nullptr;
  int checked = 0;
  for (const GoldenRow& row : rows) {
    const bool written_before = row.first_op >= -1 && row.first_op < ran_ops &&
                                !graph.main().tensors[static_cast<size_t>(row.tensor)].is_variable;
    if (missing && !written_before) continue;
    ++checked;
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
  if (missing) {
    GTEST_SKIP() << test::describe_skip(c.model, *missing) << "; the " << checked
                 << " tensors written before it match TFLM";
  }

  // Bytes an op never writes (SignalEnergy outside [start_index, end_index),
  // and the CAST copying them) hold whatever the arena held: TFLM recorded
  // zeros from its zeroed arena, as the unshared run has. Such bytes are
  // found by a second unshared run whose arena starts filled with 0xA5:
  // the bytes that differ depend on leftovers, not on the model.
  std::optional<Interpreter> filled;
  auto determinate = [&](int32_t t) {
    if (!filled) {
      filled.emplace(graph, unshared_placement(graph.main()));
      for (size_t k = 0; k < graph.main().tensors.size(); ++k) {
        const Tensor& tensor = graph.main().tensors[k];
        if (!tflm_plans_tensor(tensor)) continue;
        filled->set_tensor(static_cast<int32_t>(k), std::vector<uint8_t>(static_cast<size_t>(tensor.byte_size), 0xA5));
      }
      filled->set_inputs(input);
      filled->run();
    }
    std::span<const uint8_t> zeroed = unshared.tensor_bytes(t), leftovers = filled->tensor_bytes(t);
    std::vector<bool> mask(zeroed.size());
    for (size_t b = 0; b < zeroed.size(); ++b) mask[b] = zeroed[b] == leftovers[b];
    return mask;
  };
  // Inside TFLM's arena: check each op's outputs as soon as it has run; an
  // output with bytes its op never writes is checked on the others, against
  // the unshared run that matched TFLM.
  MemoryProblem problem = build_memory_problem(graph.main());
  Interpreter shared_arena(graph, placement_from_plan(graph.main(), problem, plan_tflm_greedy(problem)));
  shared_arena.set_inputs(input);
  shared_arena.run([&](int32_t op) {
    for (int32_t t : graph.main().ops[static_cast<size_t>(op)].outputs) {
      auto it = by_tensor.find(t);
      if (it == by_tensor.end()) continue;
      std::span<const uint8_t> got = shared_arena.tensor_bytes(t);
      if (test::fnv1a64_hex(got) == it->second->fnv) continue;
      const std::vector<bool> mask = determinate(t);
      ASSERT_NE(std::count(mask.begin(), mask.end(), false), 0)
          << "in TFLM's arena: op " << op << " output tensor " << t << " differs from TFLM";
      std::span<const uint8_t> expected = unshared.tensor_bytes(t);
      for (size_t b = 0; b < got.size(); ++b) {
        if (!mask[b]) continue;
        ASSERT_EQ(got[b], expected[b]) << "in TFLM's arena: op " << op << " output tensor " << t << " byte " << b;
      }
    }
  });
  // Leftovers may be read, never reach the outputs.
  if (filled) {
    for (int32_t t : graph.main().outputs) {
      const std::vector<bool> mask = determinate(t);
      EXPECT_EQ(std::count(mask.begin(), mask.end(), false), 0) << "graph output " << t << " depends on arena leftovers";
    }
  }
}

// `dmo run --dump-tensors` as a user runs it: every tensor TFLM keeps, op
// outputs, graph inputs, variable state and zero-size tensors alike, is
// written and holds TFLM's bytes. Unshared, as TFLM recorded them (every
// tensor kept, a zeroed arena): bytes an op never writes (SignalEnergy's
// outside its index range) hold leftovers in a shared arena, in TFLM's as
// in dmo's; the in-arena check above covers the rest.
TEST_P(Golden, DumpTensorsWritesEveryTensorTflmKeeps) {
  DMO_REQUIRE_SHARED(shared);
  const GoldenCase& c = GetParam();
  const std::string model = shared + "/models/" + c.model + ".tflite";
  const std::vector<GoldenRow> rows = test::read_golden_tensors(c.stem(shared) + ".tsv");
  const std::string dir = (std::filesystem::temp_directory_path() /
                           fmt::format("dmo_golden_dump_{}_{}_s{}", ::getpid(), c.model, c.seed))
                              .string();
  const test::CommandResult r =
      test::run_dmo({"run", model, "--seed", std::to_string(c.seed), "--unshared", "--dump-tensors", dir});
  if (r.exit_status != 0) {
    std::filesystem::remove_all(dir);
    const std::optional<test::MissingKernel> missing = test::missing_kernel(r.err);
    ASSERT_TRUE(missing.has_value()) << r.err;
    GTEST_SKIP() << test::describe_skip(c.model, *missing);
  }
  for (const GoldenRow& row : rows) {
    const std::string file = fmt::format("{}/{}.bin", dir, row.tensor);
    ASSERT_TRUE(std::filesystem::exists(file)) << "tensor " << row.tensor << " '" << row.name << "' was not dumped";
    EXPECT_EQ(test::fnv1a64_hex(test::read_file(file)), row.fnv)
        << "tensor " << row.tensor << " '" << row.name << "' (first op " << row.first_op << ")";
  }
  std::filesystem::remove_all(dir);
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
  const std::vector<GoldenCase> cases = golden_cases();
  EXPECT_EQ(cases.size(), 64u);
  // The recorded bytes are kept for 23 models; the others (too large, or
  // added later) have checksums only, which the runs above check.
  std::vector<std::string> without_bin;
  for (const GoldenCase& c : cases) {
    EXPECT_TRUE(std::ifstream(c.stem(shared) + ".in").good()) << c.model;
    EXPECT_FALSE(test::read_golden_tensors(c.stem(shared) + ".tsv").empty()) << c.model;
    if (!c.has_bin && c.seed == 1) without_bin.push_back(c.model);
  }
  EXPECT_EQ(without_bin, (std::vector<std::string>{"tfls_mobilenet_v1_0.25_224_float", "tflm_mnist_lstm_int8",
                                                   "litert_ff", "tflm_pr_retinaface", "tfls_deeplabv3_float",
                                                   "tfls_movie_review_float", "litert_nested_while",
                                                   "tflm_pr_id_model", "tflm_audio_preprocessor_int8"}));
}

// Where the recorded bytes are kept, they are the bytes the checksums describe.
TEST(GoldenFiles, KeptBytesMatchTheirChecksums) {
  DMO_REQUIRE_SHARED(shared);
  int checked = 0;
  for (const GoldenCase& c : golden_cases()) {
    if (!c.has_bin) continue;
    SCOPED_TRACE(c.model + " seed " + std::to_string(c.seed));
    const std::vector<uint8_t> bin = test::read_file(c.stem(shared) + ".bin");
    const std::vector<GoldenRow> rows = test::read_golden_tensors(c.stem(shared) + ".tsv");
    ASSERT_FALSE(rows.empty());
    ASSERT_EQ(static_cast<int64_t>(bin.size()), rows.back().offset + rows.back().bytes);
    for (const GoldenRow& row : rows) {
      std::span<const uint8_t> bytes(bin.data() + row.offset, static_cast<size_t>(row.bytes));
      EXPECT_EQ(test::fnv1a64_hex(bytes), row.fnv) << "tensor " << row.tensor;
    }
    ++checked;
  }
  EXPECT_EQ(checked, 46);
}

}  // namespace
}  // namespace dmo

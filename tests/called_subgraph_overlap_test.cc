// Safe overlaps inside called subgraphs (WHILE's cond and body): their ops
// get (input, output) pairs where the input dies at the op in the model
// timeline, with O_s from the op's own kernel; the plan of the whole model
// uses them, the checking policy runs the called subgraphs at the plan's
// offsets, and `dmo run/verify --plan FILE` takes offsets for every
// subgraph in the form `dmo plan --json` writes them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "dmo/model/model_timeline.h"
#include "dmo/overlap/safe_overlaps.h"
#include "dmo/pipeline/plan_pipeline.h"
#include "dmo/pipeline/verified_plan.h"
#include "dmo/runtime/interpreter.h"
#include "dmo/runtime/plan_verifier.h"
#include "dmo/tflite/graph_writer.h"
#include "dmo/tflite/reader.h"
#include "dmo/zoo/graph_builder.h"
#include "test_support.h"

namespace dmo {
namespace {

using test::bytes_of;

constexpr int32_t kValues = 16;  // 64 bytes of float per loop value

// main: (count int32[1], value float[16]) -> WHILE -> (count', value').
// cond (subgraph 1): count < 3. body (subgraph 2): count + 1, then
// value * 2 and that plus itself, each reading a value that dies there.
Graph doubling_loop() {
  GraphBuilder b("doubling_loop");
  const int32_t count = b.add_tensor("count", DataType::kInt32, {1});
  const int32_t value = b.add_tensor("value", DataType::kFloat32, {kValues});
  const int32_t count_out = b.add_tensor("count_out", DataType::kInt32, {1});
  const int32_t value_out = b.add_tensor("value_out", DataType::kFloat32, {kValues});
  WhileParams loop;
  loop.cond_subgraph = b.add_subgraph("cond");
  loop.body_subgraph = b.add_subgraph("body");
  b.add_op(OpKind::kWhile, {count, value}, {count_out, value_out}, loop);
  b.set_inputs({count, value});
  b.set_outputs({count_out, value_out});

  b.select(loop.cond_subgraph);
  const int32_t c = b.add_tensor("c", DataType::kInt32, {1});
  const int32_t v = b.add_tensor("v", DataType::kFloat32, {kValues});
  const int32_t limit = b.add_constant_values<int32_t>("limit", DataType::kInt32, {1}, {3});
  const int32_t flag = b.add_tensor("flag", DataType::kBool, {1});
  b.add_op(OpKind::kLess, {c, limit}, {flag});
  b.set_inputs({c, v});
  b.set_outputs({flag});

  b.select(loop.body_subgraph);
  const int32_t bc = b.add_tensor("bc", DataType::kInt32, {1});
  const int32_t bv = b.add_tensor("bv", DataType::kFloat32, {kValues});
  const int32_t one = b.add_constant_values<int32_t>("one", DataType::kInt32, {1}, {1});
  const int32_t two = b.add_constant_values<float>("two", DataType::kFloat32, {1}, {2.0f});
  const int32_t next_c = b.add_tensor("next_c", DataType::kInt32, {1});
  const int32_t doubled = b.add_tensor("doubled", DataType::kFloat32, {kValues});
  const int32_t next_v = b.add_tensor("next_v", DataType::kFloat32, {kValues});
  b.add_op(OpKind::kAdd, {bc, one}, {next_c}, ElementwiseParams{});
  b.add_op(OpKind::kMul, {bv, two}, {doubled}, ElementwiseParams{});
  b.add_op(OpKind::kAdd, {doubled, doubled}, {next_v}, ElementwiseParams{});
  b.set_inputs({bc, bv});
  b.set_outputs({next_c, next_v});
  return b.finish();
}

std::vector<uint8_t> loop_input(int32_t start) {
  std::vector<uint8_t> in = bytes_of(std::vector<int32_t>{start});
  std::vector<float> values(kValues);
  for (int32_t i = 0; i < kValues; ++i) values[static_cast<size_t>(i)] = 0.25f * static_cast<float>(i - 5);
  const std::vector<uint8_t> v = bytes_of(values);
  in.insert(in.end(), v.begin(), v.end());
  return in;
}

// Flat op and tensor indices of the doubling loop.
struct Flat {
  ModelTimeline timeline;
  int32_t op(int32_t s, int32_t i) const { return timeline.flat_op(s, i); }
  int32_t tensor(int32_t s, int32_t t) const { return timeline.flat_tensor(s, t); }
};

TEST(CalledSubgraphOverlap, EveryOpOfACalledSubgraphGetsItsPairAndItsKernelsOverlap) {
  const Graph graph = doubling_loop();
  const Flat flat{model_timeline(graph)};
  SafeOverlapOptions options;
  options.alignment = 1;
  const std::vector<OpOverlap> rows = compute_safe_overlaps(graph, options);
  // One row per op of every subgraph, by flat index: WHILE, LESS, ADD, MUL, ADD.
  ASSERT_EQ(rows.size(), 5u);
  for (size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(rows[i].pair.op, static_cast<int32_t>(i));
  // cond's LESS: c dies there; it reads c before its one store, so its
  // 1-byte BOOL output may lie wholly over c.
  const OpOverlap& less = rows[static_cast<size_t>(flat.op(1, 0))];
  EXPECT_EQ(less.pair.input, flat.tensor(1, 0));
  EXPECT_EQ(less.pair.output, flat.tensor(1, 3));
  EXPECT_TRUE(less.pair.input_dies);
  EXPECT_EQ(less.algorithmic, 1);
  // body: bv dies at MUL, doubled at the second ADD; each element-wise op
  // may write its whole output over its input.
  const OpOverlap& mul = rows[static_cast<size_t>(flat.op(2, 1))];
  EXPECT_EQ(mul.pair.input, flat.tensor(2, 1));
  EXPECT_EQ(mul.pair.output, flat.tensor(2, 5));
  EXPECT_TRUE(mul.pair.input_dies);
  EXPECT_EQ(mul.algorithmic, 4 * kValues);
  EXPECT_EQ(mul.analytic, 4 * kValues);
  EXPECT_EQ(mul.used_bytes, 4 * kValues);
  const OpOverlap& add = rows[static_cast<size_t>(flat.op(2, 2))];
  EXPECT_EQ(add.pair.input, flat.tensor(2, 5));
  EXPECT_EQ(add.pair.output, flat.tensor(2, 6));
  EXPECT_TRUE(add.pair.input_dies);
  EXPECT_EQ(add.used_bytes, 4 * kValues);
  // bc is read by the first ADD only.
  const OpOverlap& count = rows[static_cast<size_t>(flat.op(2, 0))];
  EXPECT_EQ(count.pair.input, flat.tensor(2, 0));
  EXPECT_TRUE(count.pair.input_dies);
  EXPECT_EQ(count.algorithmic, 4);
  // The WHILE itself has no loop nest of its own: no overlap.
  EXPECT_EQ(rows[0].used_bytes, 0);
}

TEST(CalledSubgraphOverlap, TheWholeModelPlanUsesThePairsAtTheirTimesAndVerifies) {
  const Graph graph = doubling_loop();
  const Flat flat{model_timeline(graph)};
  const PlanResult r = plan_model(graph);
  // The body's MUL runs at time 5, its second ADD at 6.
  std::vector<int32_t> times;
  for (const OverlapPair& pair : r.problem.overlaps) {
    times.push_back(pair.op);
    EXPECT_EQ(pair.safe_overlap, 4 * kValues);
  }
  EXPECT_EQ(times, (std::vector<int32_t>{flat.timeline.op_time[static_cast<size_t>(flat.op(2, 1))],
                                         flat.timeline.op_time[static_cast<size_t>(flat.op(2, 2))]}));
  EXPECT_EQ(times, (std::vector<int32_t>{5, 6}));
  // Overlaps save the body's 64-byte value at the peak.
  EXPECT_LT(r.dmo.arena_size, r.dmo_no_overlap.arena_size);
  const TensorPlacement placement = dmo_placement(graph, r);
  for (int32_t start : {0, 2, 5}) {
    const VerifyResult v = verify_plan(graph, placement, loop_input(start));
    EXPECT_TRUE(v.ok()) << v.describe(graph);
  }
}

// A placement of its own: every tensor apart, except the body's doubled
// value placed over bv. At bv's own bytes MUL runs in place (O_s is the
// whole output); one element higher, it writes bv's element 1 before it
// reads it, and the checking policy, running the body at the placement's
// offsets, names the body's op.
TEST(CalledSubgraphOverlap, CheckingRunsTheBodyAtThePlacementsOffsets) {
  const Graph graph = doubling_loop();
  const Flat flat{model_timeline(graph)};
  TensorPlacement apart = unshared_placement(graph.main());
  apart.offsets.resize(graph.total_tensor_count(), -1);
  int64_t end = apart.arena_size;
  for (size_t t = graph.main().tensors.size(); t < apart.offsets.size(); ++t) {
    if (!tflm_plans_tensor(flat_tensor(graph, static_cast<int32_t>(t)))) continue;
    apart.offsets[t] = end;
    end += 2 * 4 * kValues;  // room to shift a tensor within its own slot
  }
  apart.arena_size = end + 4;
  const auto bv = static_cast<size_t>(flat.tensor(2, 1)), doubled = static_cast<size_t>(flat.tensor(2, 5));
  auto with_doubled_at = [&](int64_t shift) {
    TensorPlacement p = apart;
    p.offsets[doubled] = p.offsets[bv] + shift;
    return p;
  };
  const VerifyResult in_place = verify_plan(graph, with_doubled_at(0), loop_input(0));
  EXPECT_TRUE(in_place.ok()) << in_place.describe(graph);
  const VerifyResult above = verify_plan(graph, with_doubled_at(4), loop_input(0));
  ASSERT_FALSE(above.clobbers.empty()) << above.describe(graph);
  const std::string line = describe_clobber(graph, above.clobbers.front());
  EXPECT_NE(line.find("subgraph 2 op 1 (MUL)"), std::string::npos) << line;
  EXPECT_FALSE(above.validator_errors.empty());
}

TEST(CalledSubgraphOverlap, NestedWhileModelGetsPairsInItsCalledSubgraphsAndVerifies) {
  DMO_REQUIRE_SHARED(shared);
  const Graph graph = read_tflite_file(shared + "/models/litert_nested_while.tflite");
  const ModelTimeline timeline = model_timeline(graph);
  const PlanResult r = plan_model(graph);
  ASSERT_EQ(r.overlaps.size(), timeline.op_time.size());
  int32_t called_pairs = 0;
  for (size_t op = graph.main().ops.size(); op < r.overlaps.size(); ++op) {
    const OpOverlap& o = r.overlaps[op];
    EXPECT_EQ(o.pair.op, static_cast<int32_t>(op));
    if (!o.pair.input_dies) continue;
    ++called_pairs;
    // The pair's tensors belong to the op's subgraph.
    const int32_t s = timeline.subgraph_of_op(o.pair.op);
    EXPECT_EQ(timeline.subgraph_of_tensor(o.pair.input), s);
    EXPECT_EQ(timeline.subgraph_of_tensor(o.pair.output), s);
    EXPECT_EQ(timeline.lifetimes[static_cast<size_t>(o.pair.input)].last, timeline.op_end_time[op]);
  }
  EXPECT_GT(called_pairs, 0);
  const TensorPlacement placement = dmo_placement(graph, r);
  for (int seed : {1, 2}) {
    const std::vector<uint8_t> input =
        test::read_file(shared + "/golden/litert_nested_while.s" + std::to_string(seed) + ".in");
    const VerifyResult v = verify_plan(graph, placement, input);
    EXPECT_TRUE(v.ok()) << v.describe(graph);
  }
}

// ------------------------------------------------ plan files of every subgraph

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("dmo_called_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

// `dmo plan --json`'s plan as a plan file: its offsets are flat over every subgraph.
nlohmann::json plan_file_of(const std::string& model) {
  const test::CommandResult plan = test::run_dmo({"plan", model, "--json"});
  EXPECT_EQ(plan.exit_status, 0) << plan.err;
  const nlohmann::json j = nlohmann::json::parse(plan.out);
  return {{"arena_bytes", j["dmo_bytes"]}, {"offsets", j["offsets"]}, {"descending_ops", j["descending_ops"]}};
}

void expect_one_line_exit_2(const test::CommandResult& r, const std::string& file, const std::string& problem) {
  EXPECT_EQ(r.exit_status, 2) << r.out << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(file), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(problem), std::string::npos) << "wanted: " << problem << "\ngot: " << r.err;
}

TEST(CalledSubgraphOverlap, PlanFilesTakeOffsetsOfEverySubgraph) {
  const Graph graph = doubling_loop();
  const std::string model = temp_path("loop.tflite"), file = temp_path("plan.json");
  const std::vector<uint8_t> bytes = write_tflite(graph);
  std::ofstream(model, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                               static_cast<std::streamsize>(bytes.size()));
  const nlohmann::json good = plan_file_of(model);
  ASSERT_EQ(good["offsets"].size(), graph.total_tensor_count());
  auto with = [&](const nlohmann::json& plan, const char* command) {
    std::ofstream(file) << plan.dump();
    return test::run_dmo({command, model, "--plan", file});
  };
  const test::CommandResult verified = with(good, "verify");
  EXPECT_EQ(verified.exit_status, 0) << verified.out << verified.err;
  EXPECT_EQ(with(good, "run").exit_status, 0);

  const auto sg0 = static_cast<int64_t>(graph.main().tensors.size());
  const auto all = static_cast<int64_t>(graph.total_tensor_count());
  nlohmann::json plan = good;
  plan["offsets"].erase(plan["offsets"].size() - 1);
  expect_one_line_exit_2(with(plan, "verify"), file,
                         fmt::format("{} offsets for {} tensors of subgraph 0 or {} of all 3 subgraphs: 1 missing",
                                     all - 1, sg0, all));
  plan = good;
  plan["offsets"].push_back(0);
  plan["offsets"].push_back(0);
  expect_one_line_exit_2(with(plan, "run"), file,
                         fmt::format("{} offsets for {} tensors of subgraph 0 or {} of all 3 subgraphs: 2 extra",
                                     all + 2, sg0, all));
  const Flat flat{model_timeline(graph)};
  const auto bv = static_cast<size_t>(flat.tensor(2, 1));
  plan = good;
  plan["offsets"][bv] = good["arena_bytes"].get<int64_t>() - 4;
  expect_one_line_exit_2(with(plan, "verify"), file,
                         fmt::format("tensor {} (subgraph 2 tensor 1) 'bv' (64 bytes at offset {}) does not fit in "
                                     "arena_bytes {}",
                                     bv, plan["offsets"][bv].get<int64_t>(), good["arena_bytes"].get<int64_t>()));
  plan["offsets"][bv] = -1;
  expect_one_line_exit_2(with(plan, "run"), file,
                         fmt::format("tensor {} (subgraph 2 tensor 1) 'bv' (64 bytes) has no offset", bv));
  plan["offsets"][bv] = int64_t{1} << 40;
  expect_one_line_exit_2(with(plan, "verify"), file,
                         fmt::format("offset of tensor {} 1099511627776 is above 2147483647", bv));
  // Subgraph 0's offsets alone are still a plan file (the other subgraphs then run apart).
  plan = good;
  plan["offsets"].erase(plan["offsets"].begin() + sg0, plan["offsets"].end());
  EXPECT_EQ(with(plan, "run").exit_status, 0);
  std::filesystem::remove(model);
  std::filesystem::remove(file);
}

TEST(CalledSubgraphOverlap, NestedWhilePlanFileVerifies) {
  DMO_REQUIRE_SHARED(shared);
  const std::string model = shared + "/models/litert_nested_while.tflite", file = temp_path("nested.json");
  const Graph graph = read_tflite_file(model);
  const nlohmann::json plan = plan_file_of(model);
  ASSERT_EQ(plan["offsets"].size(), graph.total_tensor_count());
  std::ofstream(file) << plan.dump();
  const test::CommandResult verified = test::run_dmo({"verify", model, "--plan", file});
  EXPECT_EQ(verified.exit_status, 0) << verified.out << verified.err;
  std::filesystem::remove(file);
}

}  // namespace
}  // namespace dmo

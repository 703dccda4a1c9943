// Control flow: WHILE, IF and CALL_ONCE running their subgraphs inside one
// arena, the lifetimes TFLM gives a called subgraph's tensors (within the
// calling op), the whole-model plan and its proof by execution with the
// checking policy, the real litert_nested_while model, and the refusals of
// bad calls (missing subgraph, operand counts, recursion) through the
// interpreter and the command line.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <unistd.h>

#include "dmo/error.h"
#include "dmo/model/model_timeline.h"
#include "dmo/pipeline/plan_pipeline.h"
#include "dmo/runtime/interpreter.h"
#include "dmo/runtime/plan_verifier.h"
#include "dmo/tflite/graph_writer.h"
#include "dmo/tflite/reader.h"
#include "dmo/zoo/graph_builder.h"
#include "test_support.h"

namespace dmo {
namespace {

using test::bytes_of;
using test::values_from;

// main: (count int32[1], value float[4]) -> WHILE -> (count', value').
// cond (subgraph 1): count < limit. body (subgraph 2): count + 1, value * 2.
Graph counting_loop(int32_t limit) {
  GraphBuilder b("counting_loop");
  const int32_t count = b.add_tensor("count", DataType::kInt32, {1});
  const int32_t value = b.add_tensor("value", DataType::kFloat32, {4});
  const int32_t count_out = b.add_tensor("count_out", DataType::kInt32, {1});
  const int32_t value_out = b.add_tensor("value_out", DataType::kFloat32, {4});
  WhileParams loop;
  loop.cond_subgraph = b.add_subgraph("cond");
  loop.body_subgraph = b.add_subgraph("body");
  b.add_op(OpKind::kWhile, {count, value}, {count_out, value_out}, loop);
  b.set_inputs({count, value});
  b.set_outputs({count_out, value_out});

  b.select(loop.cond_subgraph);
  const int32_t c = b.add_tensor("c", DataType::kInt32, {1});
  const int32_t v = b.add_tensor("v", DataType::kFloat32, {4});
  const int32_t bound = b.add_constant_values<int32_t>("limit", DataType::kInt32, {1}, {limit});
  const int32_t flag = b.add_tensor("flag", DataType::kBool, {1});
  b.add_op(OpKind::kLess, {c, bound}, {flag});
  b.set_inputs({c, v});
  b.set_outputs({flag});

  b.select(loop.body_subgraph);
  const int32_t bc = b.add_tensor("bc", DataType::kInt32, {1});
  const int32_t bv = b.add_tensor("bv", DataType::kFloat32, {4});
  const int32_t one = b.add_constant_values<int32_t>("one", DataType::kInt32, {1}, {1});
  const int32_t two = b.add_constant_values<float>("two", DataType::kFloat32, {1}, {2.0f});
  const int32_t next_c = b.add_tensor("next_c", DataType::kInt32, {1});
  const int32_t next_v = b.add_tensor("next_v", DataType::kFloat32, {4});
  b.add_op(OpKind::kAdd, {bc, one}, {next_c}, ElementwiseParams{});
  b.add_op(OpKind::kMul, {bv, two}, {next_v}, ElementwiseParams{});
  b.set_inputs({bc, bv});
  b.set_outputs({next_c, next_v});
  return b.finish();
}

// main: (flag bool[1], x float[3]) -> IF -> y; then: x + x, else: x * x.
Graph branch_model() {
  GraphBuilder b("branch_model");
  const int32_t flag = b.add_tensor("flag", DataType::kBool, {1});
  const int32_t x = b.add_tensor("x", DataType::kFloat32, {3});
  const int32_t y = b.add_tensor("y", DataType::kFloat32, {3});
  IfParams branches;
  branches.then_subgraph = b.add_subgraph("then");
  branches.else_subgraph = b.add_subgraph("else");
  b.add_op(OpKind::kIf, {flag, x}, {y}, branches);
  b.set_inputs({flag, x});
  b.set_outputs({y});
  for (int32_t s : {branches.then_subgraph, branches.else_subgraph}) {
    b.select(s);
    const int32_t in = b.add_tensor("in", DataType::kFloat32, {3});
    const int32_t out = b.add_tensor("out", DataType::kFloat32, {3});
    b.add_op(s == branches.then_subgraph ? OpKind::kAdd : OpKind::kMul, {in, in}, {out}, ElementwiseParams{});
    b.set_inputs({in});
    b.set_outputs({out});
  }
  return b.finish();
}

std::vector<uint8_t> counting_input(int32_t start) {
  std::vector<uint8_t> in = bytes_of(std::vector<int32_t>{start});
  const std::vector<uint8_t> v = bytes_of(std::vector<float>{1.0f, -0.5f, 3.0f, 0.25f});
  in.insert(in.end(), v.begin(), v.end());
  return in;
}

std::vector<uint8_t> run_unshared(const Graph& graph, const std::vector<uint8_t>& input) {
  Interpreter interpreter(graph, unshared_placement(graph.main()));
  interpreter.set_inputs(input);
  interpreter.run();
  return interpreter.outputs();
}

TEST(ControlFlow, WhileRunsItsBodyUntilTheConditionFails) {
  const Graph graph = counting_loop(5);
  const std::vector<uint8_t> out = run_unshared(graph, counting_input(0));
  ASSERT_EQ(out.size(), 4u + 16u);
  EXPECT_EQ(values_from<int32_t>(std::span(out).first(4)), std::vector<int32_t>{5});
  EXPECT_EQ(values_from<float>(std::span(out).subspan(4)), (std::vector<float>{32.0f, -16.0f, 96.0f, 8.0f}));
  // The condition decides at run time: started at 3, two iterations; at 7, none.
  const std::vector<uint8_t> twice = run_unshared(graph, counting_input(3));
  EXPECT_EQ(values_from<int32_t>(std::span(twice).first(4)), std::vector<int32_t>{5});
  EXPECT_EQ(values_from<float>(std::span(twice).subspan(4)), (std::vector<float>{4.0f, -2.0f, 12.0f, 1.0f}));
  const std::vector<uint8_t> never = run_unshared(graph, counting_input(7));
  EXPECT_EQ(never, counting_input(7));
}

TEST(ControlFlow, IfRunsTheBranchItsConditionNames) {
  const Graph graph = branch_model();
  const std::vector<uint8_t> x = bytes_of(std::vector<float>{1.5f, -2.0f, 3.0f});
  std::vector<uint8_t> yes = {1}, no = {0};
  yes.insert(yes.end(), x.begin(), x.end());
  no.insert(no.end(), x.begin(), x.end());
  EXPECT_EQ(values_from<float>(run_unshared(graph, yes)), (std::vector<float>{3.0f, -4.0f, 6.0f}));
  EXPECT_EQ(values_from<float>(run_unshared(graph, no)), (std::vector<float>{2.25f, 4.0f, 9.0f}));
}

// TFLM's scopes for the counting loop: inputs at scope 0, the WHILE at 1,
// cond's call at 2 and its LESS at 3, body's call at 4, its ADD and MUL at
// 5 and 6; the WHILE's tensors live until 6. Time = scope - 1.
TEST(ControlFlow, CalledSubgraphsLiveWithinTheCallingOp) {
  const Graph graph = counting_loop(5);
  const ModelTimeline timeline = model_timeline(graph);
  EXPECT_EQ(timeline.time_count, 6);
  EXPECT_EQ(timeline.op_time, (std::vector<int32_t>{0, 2, 4, 5}));  // WHILE, LESS, ADD, MUL
  EXPECT_EQ(timeline.op_end_time[0], 5);
  EXPECT_EQ(timeline.entry_time, (std::vector<int32_t>{-1, 1, 3}));
  EXPECT_EQ(timeline.exit_time, (std::vector<int32_t>{5, 2, 5}));
  auto life = [&](int32_t s, int32_t t) { return timeline.lifetimes[static_cast<size_t>(timeline.flat_tensor(s, t))]; };
  // main: inputs from before everything, outputs from the WHILE, all to its end.
  EXPECT_EQ(life(0, 0).first, -1);
  EXPECT_EQ(life(0, 0).last, 5);
  EXPECT_EQ(life(0, 2).first, 0);
  EXPECT_EQ(life(0, 2).last, 5);
  // cond: inputs from its call; v, never read, lives at the call only; flag,
  // an output, is created again by LESS (TFLM's creation resets both ends).
  EXPECT_EQ(life(1, 0).first, 1);
  EXPECT_EQ(life(1, 0).last, 2);
  EXPECT_EQ(life(1, 1).first, 1);
  EXPECT_EQ(life(1, 1).last, 1);
  EXPECT_EQ(life(1, 3).first, 2);
  EXPECT_EQ(life(1, 3).last, 2);
  // body: next_c created by ADD, kept as an output to the body's end.
  EXPECT_EQ(life(2, 4).first, 4);
  EXPECT_EQ(life(2, 4).last, 5);
  EXPECT_EQ(life(2, 0).last, 4);  // bc, read by ADD only
}

TEST(ControlFlow, WholeModelPlanCoversEverySubgraphAndVerifies) {
  const Graph graph = counting_loop(5);
  const PlanResult r = plan_model(graph);
  EXPECT_EQ(r.planned_subgraphs, 3);
  EXPECT_EQ(r.problem.op_count, 6);
  EXPECT_EQ(r.op_times, (std::vector<int32_t>{0}));
  // Every non-constant tensor of every subgraph is a buffer: 4 + 3 + 4.
  EXPECT_EQ(r.problem.buffers.size(), 11u);
  const TensorPlacement placement = dmo_placement(graph, r);
  ASSERT_EQ(placement.offsets.size(), graph.total_tensor_count());
  for (const std::vector<uint8_t>& input : {counting_input(0), counting_input(4), counting_input(9)}) {
    const VerifyResult v = verify_placement(graph, placement, input);
    EXPECT_TRUE(v.ok()) << v.describe(graph);
    EXPECT_EQ(v.output_bytes_compared, 20);
  }
  EXPECT_LE(r.dmo.arena_size, r.tflm_greedy.arena_size);
}

// A placement that puts the body's ADD output on the body input its MUL
// reads next: the checking policy names the body's op and both tensors.
TEST(ControlFlow, CheckingCoversTheCalledSubgraphs) {
  const Graph graph = counting_loop(5);
  const ModelTimeline timeline = model_timeline(graph);
  TensorPlacement placement = unshared_placement(graph.main());
  placement.offsets.resize(graph.total_tensor_count(), -1);
  int64_t end = placement.arena_size;
  for (size_t t = graph.main().tensors.size(); t < placement.offsets.size(); ++t) {
    if (!tflm_plans_tensor(flat_tensor(graph, static_cast<int32_t>(t)))) continue;
    placement.offsets[t] = end;
    end += 16;
  }
  placement.arena_size = end;
  const auto next_c = static_cast<size_t>(timeline.flat_tensor(2, 4));
  placement.offsets[next_c] = placement.offsets[static_cast<size_t>(timeline.flat_tensor(2, 1))];  // over bv
  Interpreter interpreter(graph, placement);
  interpreter.set_inputs(counting_input(0));
  const std::vector<Clobber> clobbers = interpreter.run_checked_all();
  ASSERT_FALSE(clobbers.empty());
  const std::string line = describe_clobber(graph, clobbers.front());
  EXPECT_NE(line.find("subgraph 2 op 0 (ADD) wrote subgraph 2 tensor 4 'next_c'"), std::string::npos) << line;
  EXPECT_NE(line.find("of subgraph 2 tensor 1 'bv', still needed later"), std::string::npos) << line;
  // The whole-model plan loses nothing.
  Interpreter checked(graph, dmo_placement(graph, plan_model(graph)));
  checked.set_inputs(counting_input(0));
  EXPECT_TRUE(checked.run_checked_all().empty());
}

TEST(ControlFlow, NestedWhileModelMatchesTflmAndVerifies) {
  DMO_REQUIRE_SHARED(shared);
  const Graph graph = read_tflite_file(shared + "/models/litert_nested_while.tflite");
  ASSERT_EQ(graph.subgraphs.size(), 5u);
  const PlanResult r = plan_model(graph);
  EXPECT_EQ(r.planned_subgraphs, 5);
  const TensorPlacement placement = dmo_placement(graph, r);
  for (int seed : {1, 2}) {
    const std::vector<uint8_t> input = test::read_file(shared + "/golden/litert_nested_while.s" +
                                                       std::to_string(seed) + ".in");
    const VerifyResult v = verify_placement(graph, placement, input);
    EXPECT_TRUE(v.ok()) << v.describe(graph);
  }
}

// ---------------------------------------------------------------- bad calls

std::string run_error(const Graph& graph) {
  return test::error_of([&] {
    Interpreter interpreter(graph, unshared_placement(graph.main()));
    interpreter.run();
  });
}

#define EXPECT_RUN_ERROR(graph, text)                                           \
  do {                                                                          \
    const std::string message = run_error(graph);                               \
    EXPECT_NE(message.find(text), std::string::npos) << "message: " << message; \
  } while (0)

Graph with_while_params(Graph graph, int32_t cond, int32_t body) {
  std::get<WhileParams>(graph.subgraphs[0].ops[0].params) = WhileParams{cond, body};
  return graph;
}

TEST(ControlFlow, RefusesAMissingSubgraph) {
  EXPECT_RUN_ERROR(with_while_params(counting_loop(5), 1, 7),
                   "counting_loop: subgraph 0 op 0 (WHILE): calls subgraph 7, but the model has 3 subgraphs");
  EXPECT_RUN_ERROR(with_while_params(counting_loop(5), -1, 2),
                   "subgraph 0 op 0 (WHILE): calls subgraph -1, but the model has 3 subgraphs");
}

TEST(ControlFlow, RefusesMismatchedOperandCounts) {
  Graph graph = counting_loop(5);
  graph.subgraphs[2].outputs.pop_back();
  EXPECT_RUN_ERROR(graph, "subgraph 0 op 0 (WHILE): the number of outputs of body subgraph 2 is 1, but must be 2");
  Graph cond_inputs = counting_loop(5);
  cond_inputs.subgraphs[1].inputs.pop_back();
  EXPECT_RUN_ERROR(cond_inputs, "the number of inputs of cond subgraph 1 is 1, but must be 2");
  Graph branch = branch_model();
  branch.subgraphs[2].inputs.push_back(0);
  EXPECT_RUN_ERROR(branch, "subgraph 0 op 0 (IF): the number of inputs of branch subgraph 2 is 2, but must be 1");
  Graph sizes = counting_loop(5);
  sizes.subgraphs[2].tensors[1].shape = {2};
  sizes.subgraphs[2].tensors[1].element_count = 2;
  sizes.subgraphs[2].tensors[1].byte_size = 8;
  EXPECT_RUN_ERROR(sizes, "output 1: tensor 3 (FLOAT32, 16 bytes) and subgraph 2 tensor 1 (FLOAT32, 8 bytes) differ");
}

TEST(ControlFlow, RefusesRecursion) {
  // The body calls itself.
  Graph direct = counting_loop(5);
  Op self = direct.subgraphs[0].ops[0];
  self.inputs = {0, 1};
  self.outputs = {4, 5};
  direct.subgraphs[2].ops = {self};
  direct.subgraphs[2].outputs = {4, 5};
  EXPECT_RUN_ERROR(direct, "subgraph 2 op 0 (WHILE): calls subgraph 2, which is already running (recursion: subgraph "
                           "2 -> 2)");
  // Two bodies calling each other: main -> WHILE(1, 2), 2 -> WHILE(1, 3), 3 -> WHILE(1, 2).
  Graph indirect = counting_loop(5);
  Op call = indirect.subgraphs[0].ops[0];
  call.inputs = {0, 1};
  call.outputs = {4, 5};
  indirect.subgraphs[2].ops = {call};
  indirect.subgraphs.push_back(indirect.subgraphs[2]);
  std::get<WhileParams>(indirect.subgraphs[2].ops[0].params).body_subgraph = 3;
  EXPECT_RUN_ERROR(indirect, "subgraph 3 op 0 (WHILE): calls subgraph 2, which is already running (recursion: "
                             "subgraph 2 -> 3 -> 2)");
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("dmo_control_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

void expect_cli_refused(const Graph& graph, const std::string& name, const std::string& message) {
  const std::string path = temp_path(name + ".tflite");
  const std::vector<uint8_t> bytes = write_tflite(graph);
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                              static_cast<std::streamsize>(bytes.size()));
  for (const char* command : {"plan", "run", "verify"}) {
    SCOPED_TRACE(command);
    const test::CommandResult r = test::run_dmo({command, path});
    EXPECT_EQ(r.exit_status, 2) << r.out << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.err.rfind("dmo: error: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << "wanted: " << message << "\ngot: " << r.err;
  }
  std::remove(path.c_str());
}

TEST(ControlFlow, CommandLineRefusesBadCallsWithOneLine) {
  expect_cli_refused(with_while_params(counting_loop(5), 1, 9), "missing",
                     "subgraph 0 op 0 (WHILE): calls subgraph 9, but the model has 3 subgraphs");
  Graph counts = counting_loop(5);
  counts.subgraphs[2].outputs.pop_back();
  expect_cli_refused(counts, "counts", "the number of outputs of body subgraph 2 is 1, but must be 2");
  expect_cli_refused(with_while_params(counting_loop(5), 1, 0), "recursion",
                     "subgraph 0 op 0 (WHILE): calls subgraph 0, which is already running (recursion: subgraph 0 -> 0)");
}

TEST(ControlFlow, CommandLinePlansAndVerifiesTheWholeModel) {
  const std::string path = temp_path("loop.tflite");
  const std::vector<uint8_t> bytes = write_tflite(counting_loop(5));
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                              static_cast<std::streamsize>(bytes.size()));
  const test::CommandResult plan = test::run_dmo({"plan", path, "--json"});
  ASSERT_EQ(plan.exit_status, 0) << plan.err;
  const nlohmann::json j = nlohmann::json::parse(plan.out);
  EXPECT_EQ(j["planned_subgraphs"], (std::vector<int32_t>{0, 1, 2}));
  EXPECT_EQ(j["offsets"].size(), 14u);  // every subgraph's tensors, flat
  const test::CommandResult text = test::run_dmo({"plan", path});
  EXPECT_NE(text.out.find("figures cover subgraphs 0-2"), std::string::npos) << text.out;
  const test::CommandResult verify = test::run_dmo({"verify", path});
  EXPECT_EQ(verify.exit_status, 0) << verify.out << verify.err;
  std::remove(path.c_str());
}

}  // namespace
}  // namespace dmo

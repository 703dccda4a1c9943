// Operation re-ordering: the exact search against brute force over every
// topological order, a branchy graph whose reordered plan is smaller and
// runs right, plan files carrying an order, bad orders refused, and export
// writing subgraph 0's operators in the new order.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "dmo/error.h"
#include "dmo/model/op_order.h"
#include "dmo/pipeline/placement_file.h"
#include "dmo/pipeline/reordered_plan.h"
#include "dmo/pipeline/verified_plan.h"
#include "dmo/report/plan_report.h"
#include "dmo/report/reorder_report.h"
#include "dmo/runtime/input_pattern.h"
#include "dmo/runtime/interpreter.h"
#include "dmo/tflite/graph_writer.h"
#include "dmo/tflite/reader.h"
#include "dmo/transform/reorder.h"
#include "dmo/zoo/graph_builder.h"
#include "graph_equality.h"
#include "int8_conv_graph.h"
#include "test_support.h"

namespace dmo {
namespace {

namespace fs = std::filesystem;
using test::run_dmo;

// --- the search on abstract problems ---------------------------------------

// A random DAG of `ops` ops: each op reads one to three earlier buffers
// (graph inputs included) and writes one buffer of a random size; some
// ops get a safe overlap with their first input; the last buffers are the
// graph's outputs.
OrderProblem random_problem(std::mt19937& rng, size_t ops) {
  OrderProblem p;
  std::uniform_int_distribution<int64_t> size(1, 20);
  const size_t inputs = 1 + rng() % 2;
  for (size_t i = 0; i < inputs; ++i) p.buffers.push_back({size(rng) * 16, -1, {}, false});
  p.predecessors.resize(ops);
  p.overlap_bytes.assign(ops, 0);
  p.overlap_buffer.assign(ops, -1);
  for (size_t op = 0; op < ops; ++op) {
    const size_t reads = 1 + rng() % 3;
    std::vector<int32_t> read;
    for (size_t r = 0; r < reads; ++r) {
      const auto b = static_cast<int32_t>(rng() % p.buffers.size());
      if (std::find(read.begin(), read.end(), b) == read.end()) read.push_back(b);
    }
    for (int32_t b : read) {
      OrderProblem::Buffer& buffer = p.buffers[static_cast<size_t>(b)];
      buffer.readers.push_back(static_cast<int32_t>(op));
      if (buffer.producer >= 0) p.predecessors[op].push_back(buffer.producer);
    }
    std::sort(p.predecessors[op].begin(), p.predecessors[op].end());
    p.predecessors[op].erase(std::unique(p.predecessors[op].begin(), p.predecessors[op].end()), p.predecessors[op].end());
    if (rng() % 2) {
      p.overlap_buffer[op] = read.front();
      p.overlap_bytes[op] = std::min<int64_t>(p.buffers[static_cast<size_t>(read.front())].bytes, 16 * (1 + rng() % 4));
    }
    p.buffers.push_back({size(rng) * 16, static_cast<int32_t>(op), {}, false});
  }
  for (OrderProblem::Buffer& b : p.buffers) {
    if (b.producer >= 0 && b.readers.empty()) b.live_to_end = true;
  }
  return p;
}

// The least peak over every topological order, by enumeration.
void brute_force(const OrderProblem& p, std::vector<int32_t>& order, std::vector<char>& done, int64_t& best) {
  if (order.size() == p.op_count()) {
    best = std::min(best, order_peak_bytes(p, order));
    return;
  }
  for (size_t op = 0; op < p.op_count(); ++op) {
    if (done[op]) continue;
    const auto& before = p.predecessors[op];
    if (!std::all_of(before.begin(), before.end(), [&](int32_t q) { return done[static_cast<size_t>(q)] != 0; })) continue;
    done[op] = 1;
    order.push_back(static_cast<int32_t>(op));
    brute_force(p, order, done, best);
    order.pop_back();
    done[op] = 0;
  }
}

bool is_topological(const OrderProblem& p, const std::vector<int32_t>& order) {
  std::vector<int64_t> at(p.op_count(), -1);
  for (size_t i = 0; i < order.size(); ++i) at[static_cast<size_t>(order[i])] = static_cast<int64_t>(i);
  for (size_t op = 0; op < p.op_count(); ++op) {
    if (at[op] < 0) return false;
    for (int32_t q : p.predecessors[op]) {
      if (at[static_cast<size_t>(q)] > at[op]) return false;
    }
  }
  return order.size() == p.op_count();
}

TEST(ReorderSearch, ExactEqualsBruteForceOnRandomDags) {
  std::mt19937 rng(20240611);
  int gained = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const size_t ops = 2 + static_cast<size_t>(trial % 8);  // up to 9 ops
    const OrderProblem p = random_problem(rng, ops);
    std::vector<int32_t> order;
    std::vector<char> done(ops, 0);
    int64_t best = std::numeric_limits<int64_t>::max();
    brute_force(p, order, done, best);
    const OrderSearch found = search_op_order(p);
    ASSERT_TRUE(is_topological(p, found.order)) << "trial " << trial;
    ASSERT_EQ(found.peak_bytes, order_peak_bytes(p, found.order)) << "trial " << trial;
    ASSERT_EQ(found.peak_bytes, best) << "trial " << trial << " (" << reorder_method_name(found.method) << ")";
    ASSERT_LE(found.peak_bytes, found.file_order_peak_bytes);
    gained += found.peak_bytes < found.file_order_peak_bytes;
    // The beam never does better than the optimum and never worse than file order.
    const OrderSearch beam = search_op_order(p, {.exact_states = 0, .beam_width = 2});
    ASSERT_TRUE(is_topological(p, beam.order));
    ASSERT_GE(beam.peak_bytes, best);
    ASSERT_LE(beam.peak_bytes, beam.file_order_peak_bytes);
  }
  // The property is not vacuous: many random graphs have a better order.
  EXPECT_GT(gained, 30);
}

TEST(ReorderSearch, ChainHasOneOrder) {
  OrderProblem p;
  p.buffers = {{64, -1, {0}, false}, {128, 0, {1}, false}, {32, 1, {}, true}};
  p.predecessors = {{}, {0}};
  p.overlap_bytes = {0, 0};
  p.overlap_buffer = {-1, -1};
  const OrderSearch found = search_op_order(p);
  EXPECT_EQ(found.method, ReorderMethod::kChain);
  EXPECT_EQ(found.order, (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(found.peak_bytes, 64 + 128);  // the input and the first output, while op 0 runs
}

TEST(ReorderSearch, BeamAboveTheStateLimit) {
  std::mt19937 rng(7);
  const OrderProblem p = random_problem(rng, 9);
  const OrderSearch found = search_op_order(p, {.exact_states = 3, .beam_width = 4});
  EXPECT_EQ(found.method, ReorderMethod::kHeuristic);
  EXPECT_TRUE(is_topological(p, found.order));
}

// --- a branchy graph ------------------------------------------------------

const Quantization kQuant{{0.1f}, {-2}, 0};

// Input 1x8x8x1 (64 bytes) feeds two branches, each a conv widening to 8
// channels (512 bytes) and one narrowing back to 1 (64 bytes); their
// outputs are concatenated (128 bytes). The file runs both wide convs
// first, so both 512-byte tensors are live at once; running one branch to
// its end before the other keeps one.
Graph two_branches() {
  GraphBuilder b("two_branches");
  const Quantization in_quant{{0.05f}, {3}, 0};
  const int32_t input = b.add_tensor("input", DataType::kInt8, {1, 8, 8, 1}, in_quant);
  const int32_t a1 = test::add_int8_conv3x3(b, "a1", input, 1, {1, 8, 8, 8}, Padding::kSame, 1, kQuant);
  const int32_t b1 = test::add_int8_conv3x3(b, "b1", input, 1, {1, 8, 8, 8}, Padding::kSame, 2, kQuant);
  const int32_t a2 = test::add_int8_conv3x3(b, "a2", a1, 8, {1, 8, 8, 1}, Padding::kSame, 3, kQuant);
  const int32_t b2 = test::add_int8_conv3x3(b, "b2", b1, 8, {1, 8, 8, 1}, Padding::kSame, 4, kQuant);
  const int32_t out = b.add_tensor("out", DataType::kInt8, {1, 8, 8, 2}, kQuant);
  ConcatenationParams concat;
  concat.axis = 3;
  b.add_op(OpKind::kConcatenation, {a2, b2}, {out}, concat);
  b.set_inputs({input});
  b.set_outputs({out});
  return b.finish();
}

std::vector<uint8_t> unshared_outputs(const Graph& graph, std::span<const uint8_t> input) {
  Interpreter interpreter(graph, unshared_placement(graph.main()));
  interpreter.set_inputs(input);
  interpreter.run();
  return interpreter.outputs();
}

TEST(ReorderGraph, BranchyGraphGainsAndRunsRight) {
  const Graph graph = two_branches();
  const ReorderedPlan r = plan_with_reorder(graph, {}, ReorderRequest::kAuto);
  EXPECT_EQ(r.method, ReorderMethod::kExact);
  ASSERT_TRUE(r.reordered());
  EXPECT_LT(r.reorder_bytes, r.plain_bytes);
  EXPECT_EQ(r.plan.dmo.arena_size, r.reorder_bytes);
  EXPECT_LE(r.both_bytes, r.concat_in_place_bytes);
  EXPECT_LE(r.both_bytes, r.reorder_bytes);
  RecordProperty("plain_bytes", static_cast<int>(r.plain_bytes));
  RecordProperty("reorder_bytes", static_cast<int>(r.reorder_bytes));
  RecordProperty("concat_in_place_bytes", static_cast<int>(r.concat_in_place_bytes));
  RecordProperty("both_bytes", static_cast<int>(r.both_bytes));
  // One branch to its end, then the other: a2 right after a1, b2 right after b1.
  const auto at = [&](int32_t op) { return std::find(r.order.begin(), r.order.end(), op) - r.order.begin(); };
  EXPECT_EQ(at(2), at(0) + 1);
  EXPECT_EQ(at(3), at(1) + 1);
  EXPECT_EQ(op_order_problem(graph, r.order), "");

  const std::vector<uint8_t> input = pattern_input(graph.main(), 3);
  const VerifyResult verified = verify_plan(r.graph, dmo_placement(r.graph, r.plan), input);
  EXPECT_TRUE(verified.ok()) << verified.describe(r.graph);
  EXPECT_TRUE(verified.outputs_identical());
  // Bit-identical to the model in file order, too.
  EXPECT_EQ(unshared_outputs(r.graph, input), unshared_outputs(graph, input));
}

TEST(ReorderGraph, ConcatInPlaceCombines) {
  const Graph graph = two_branches();
  PlanOptions options;
  options.concat_in_place = true;
  const ReorderedPlan r = plan_with_reorder(graph, options, ReorderRequest::kAuto);
  EXPECT_EQ(r.plan.dmo.arena_size, std::min(r.both_bytes, r.concat_in_place_bytes));
  EXPECT_LE(r.both_bytes, r.plain_bytes);
  const VerifyResult verified = verify_plan(r.graph, dmo_placement(r.graph, r.plan), pattern_input(graph.main(), 5),
                                            nullptr, KernelFamily::kTflmReference, {}, r.plan.concat_in_place);
  EXPECT_TRUE(verified.ok()) << verified.describe(r.graph);
}

TEST(ReorderGraph, SplitRefused) {
  const Graph graph = two_branches();
  PlanOptions options;
  SplitStage stage;
  stage.tiles = 2;
  options.split = {stage};
  EXPECT_THROW(plan_with_reorder(graph, options, ReorderRequest::kAuto), Error);
}

TEST(ReorderGraph, OrdersChecked) {
  const Graph graph = two_branches();
  EXPECT_EQ(op_order_problem(graph, {0, 2, 1, 3, 4}), "");
  EXPECT_NE(op_order_problem(graph, {2, 0, 1, 3, 4}).find("not a topological order"), std::string::npos);
  EXPECT_NE(op_order_problem(graph, {0, 1, 2, 3}).find("op 4 is missing"), std::string::npos);
  EXPECT_NE(op_order_problem(graph, {0, 1, 1, 3, 4}).find("op 1 is repeated"), std::string::npos);
  EXPECT_NE(op_order_problem(graph, {0, 1, 2, 3, 5}).find("op 5 is outside"), std::string::npos);
  EXPECT_THROW(reordered_graph(graph, {4, 0, 1, 2, 3}), Error);
}

// --- files ----------------------------------------------------------------

class ScratchFiles {
 public:
  ScratchFiles() {
    static int counter = 0;
    dir_ = fs::temp_directory_path() / ("dmo_reorder_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::create_directories(dir_);
  }
  ~ScratchFiles() { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path(name)) << text;
    return path(name);
  }

 private:
  fs::path dir_;
};

std::string write_model(const ScratchFiles& files, const Graph& graph) {
  const std::vector<uint8_t> bytes = write_tflite(graph);
  const std::string path = files.path(graph.source + ".tflite");
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return path;
}

// `dmo plan --reorder auto --json` of a model as a plan file.
nlohmann::json reordered_plan_file(const std::string& model) {
  const test::CommandResult r = run_dmo({"plan", model, "--reorder", "auto", "--json"});
  EXPECT_EQ(r.exit_status, 0) << r.err;
  const nlohmann::json plan = nlohmann::json::parse(r.out);
  nlohmann::json offsets = nlohmann::json::array();
  for (const auto& t : plan["tensors"]) offsets.push_back(t.contains("dmo_offset") ? t["dmo_offset"] : nlohmann::json(-1));
  return {{"arena_bytes", plan["dmo_bytes"]},
          {"offsets", offsets},
          {"descending_ops", plan["descending_ops"]},
          {"order", plan["order"]}};
}

TEST(ReorderPlanFile, RoundTripAndVerify) {
  const ScratchFiles files;
  const Graph graph = two_branches();
  const std::string model = write_model(files, graph);
  const nlohmann::json plan = reordered_plan_file(model);
  const ReorderedPlan expected = plan_with_reorder(read_tflite_file(model), {}, ReorderRequest::kAuto);
  EXPECT_EQ(plan["order"].get<std::vector<int32_t>>(), expected.order);
  EXPECT_EQ(plan["arena_bytes"].get<int64_t>(), expected.plan.dmo.arena_size);
  const std::string path = files.write("plan.json", plan.dump());

  const PlacementFile file = read_placement_file(path, graph);
  EXPECT_EQ(file.order, expected.order);
  EXPECT_EQ(file.placement.arena_size, expected.plan.dmo.arena_size);
  EXPECT_EQ(file.placement.offsets, dmo_placement(expected.graph, expected.plan).offsets);
  EXPECT_EQ(file.placement.descending_ops, expected.plan.dmo.descending_ops);

  const test::CommandResult verified = run_dmo({"verify", model, "--plan", path, "--json"});
  EXPECT_EQ(verified.exit_status, 0) << verified.out << verified.err;
  const nlohmann::json v = nlohmann::json::parse(verified.out);
  EXPECT_TRUE(v["ok"].get<bool>());
  EXPECT_EQ(v["order"].get<std::vector<int32_t>>(), expected.order);
  // The same plan in file order is not safe: the validator or the run says so.
  nlohmann::json file_order_plan = plan;
  file_order_plan.erase("order");
  const test::CommandResult unordered =
      run_dmo({"verify", model, "--plan", files.write("unordered.json", file_order_plan.dump())});
  EXPECT_EQ(unordered.exit_status, 1) << unordered.out << unordered.err;

  // Without --reorder: file order, and the method says it was not searched.
  const nlohmann::json unsearched = nlohmann::json::parse(run_dmo({"plan", model, "--json"}).out);
  EXPECT_EQ(unsearched["order"].get<std::vector<int32_t>>(), file_order(graph));
  EXPECT_EQ(unsearched["reorder_method"], "none");

  EXPECT_EQ(run_dmo({"verify", model, "--reorder", "auto"}).exit_status, 0);
  const test::CommandResult ran = run_dmo({"run", model, "--plan", path});
  EXPECT_EQ(ran.exit_status, 0) << ran.err;
  EXPECT_EQ(run_dmo({"run", model, "--reorder", "auto"}).exit_status, 0);
}

void expect_one_line_exit_2(const test::CommandResult& r, const std::string& file, const std::string& problem) {
  EXPECT_EQ(r.exit_status, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(file), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(problem), std::string::npos) << r.err;
}

TEST(ReorderPlanFile, BadOrdersRefused) {
  const ScratchFiles files;
  const std::string model = write_model(files, two_branches());
  nlohmann::json plan = reordered_plan_file(model);
  const std::vector<std::pair<nlohmann::json, std::string>> bad = {
      {nlohmann::json::array({2, 0, 1, 3, 4}), "not a topological order"},
      {nlohmann::json::array({0, 1, 2, 3}), "op 4 is missing"},
      {nlohmann::json::array({0, 1, 1, 2, 3, 4}), "op 1 is repeated"},
      {nlohmann::json::array({0, 1, 2, 3, 7}), "order: op 7 is above 4"},
      {nlohmann::json::array({0, 1, 2, 3, -1}), "order: op -1 is outside 0..4"},
      {nlohmann::json::array({0, 1, "2", 3, 4}), "order must be integers"},
      {nlohmann::json(3), "order must be a list"},
  };
  for (size_t i = 0; i < bad.size(); ++i) {
    plan["order"] = bad[i].first;
    const std::string path = files.write(fmt::format("bad{}.json", i), plan.dump());
    for (const char* command : {"verify", "run"}) {
      SCOPED_TRACE(fmt::format("{} {}", command, bad[i].first.dump()));
      expect_one_line_exit_2(run_dmo({command, model, "--plan", path}), path, bad[i].second);
    }
  }
  // Not with split stages, and --reorder auto not with --split.
  plan["order"] = nlohmann::json::array({0, 2, 1, 3, 4});
  const std::string ordered = files.write("ordered.json", plan.dump());
  expect_one_line_exit_2(run_dmo({"verify", model, "--plan", ordered, "--split", "0-0:2"}), ordered, "--split");
  const test::CommandResult split = run_dmo({"plan", model, "--reorder", "auto", "--split", "0-0:2"});
  EXPECT_EQ(split.exit_status, 2);
  EXPECT_NE(split.err.find("--reorder auto cannot be combined with --split"), std::string::npos) << split.err;
}

TEST(ReorderExport, WritesOpsInTheNewOrder) {
  const ScratchFiles files;
  const Graph graph = two_branches();
  const std::string model = write_model(files, graph);
  const std::string out = files.path("out.tflite");
  const test::CommandResult r = run_dmo({"export", model, "-o", out, "--reorder", "auto", "--json"});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const auto order = j["order"].get<std::vector<int32_t>>();
  ASSERT_NE(order, file_order(graph));
  EXPECT_EQ(j["reorder_method"], "exact");

  const Graph back = read_tflite_file(out);
  // Subgraph 0's operators in the new order, everything else as it was.
  EXPECT_EQ(test::graph_difference(reordered_graph(read_tflite_file(model), order), back,
                                   {.compare_offline_plan = false}),
            "");
  ASSERT_TRUE(back.offline_plan.has_value());
  // The file runs right inside the plan it carries, in its own (new) file order.
  const PlanToVerify offline = offline_placement(back);
  const VerifyResult verified = verify_plan(back, offline.placement, pattern_input(back.main(), 2));
  EXPECT_TRUE(verified.ok()) << verified.describe(back);
  // Without --reorder the operators stay in file order.
  const std::string plain = files.path("plain.tflite");
  ASSERT_EQ(run_dmo({"export", model, "-o", plain}).exit_status, 0);
  EXPECT_EQ(test::graph_difference(read_tflite_file(model), read_tflite_file(plain), {.compare_offline_plan = false}), "");
}

// --- the shared models ----------------------------------------------------

TEST(ReorderSharedModels, NeverAboveFileOrderAndVerified) {
  const std::optional<std::string> shared = test::shared_dir();
  if (!shared) GTEST_SKIP() << "../shared is absent: no shared models to reorder";
  int planned = 0;
  for (const char* name : {"litert_topo_sort_fork", "litert_topo_sort_fork_split", "litert_topo_sort_interleaved",
                           "coral_split_concat", "tiny_resnet8_int8"}) {
    const std::string path = *shared + "/models/" + name + ".tflite";
    if (!fs::exists(path)) continue;
    SCOPED_TRACE(name);
    const Graph graph = read_tflite_file(path);
    const ReorderedPlan r = plan_with_reorder(graph, {}, ReorderRequest::kAuto);
    EXPECT_LE(r.reorder_bytes, r.plain_bytes);
    EXPECT_LE(r.both_bytes, r.concat_in_place_bytes);
    EXPECT_EQ(r.plan.dmo.arena_size, r.reorder_bytes);
    EXPECT_EQ(op_order_problem(graph, r.order), "");
    ++planned;
    try {
      const VerifyResult v = verify_plan(r.graph, dmo_placement(r.graph, r.plan), pattern_input(graph.main(), 1));
      EXPECT_TRUE(v.ok()) << v.describe(r.graph);
    } catch (const Error& e) {
      // An op dmo has no kernel for: the plan is still checked above.
      EXPECT_TRUE(test::missing_kernel(e.what()).has_value()) << e.what();
    }
  }
  if (planned == 0) GTEST_SKIP() << "none of the branchy shared models is present";
}

}  // namespace
}  // namespace dmo

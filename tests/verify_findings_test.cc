// What `dmo verify` finds: the whole-arena checking policy on hand-built
// accesses, a real plan wrong by one tensor (found by the validator and by
// the checked run, library and command line), tensors read but never
// written, and the model's offline plan verified as TFLM will run it.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "dmo/model/lifetime.h"
#include "dmo/ops/memory_policy.h"
#include "dmo/pipeline/plan_pipeline.h"
#include "dmo/pipeline/verified_plan.h"
#include "dmo/runtime/input_pattern.h"
#include "dmo/runtime/unwritten_reads.h"
#include "dmo/tflite/reader.h"
#include "dmo/zoo/zoo.h"
#include "test_support.h"

namespace dmo {
namespace {

using test::run_dmo;

Tensor int8_tensor(int64_t elements) {
  Tensor t;
  t.type = DataType::kInt8;
  t.shape = {static_cast<int32_t>(elements)};
  t.element_count = elements;
  t.byte_size = elements;
  return t;
}

// Three 8-byte tensors in a 24-byte arena: A at 0, B at 8, C at 16; op 0
// reads A and writes B, op 1 reads A and B and writes C (a graph output).
struct ThreeTensors {
  std::vector<uint8_t> arena = std::vector<uint8_t>(24, 0);
  Tensor a = int8_tensor(8), b = int8_tensor(8), c = int8_tensor(8);
  ArenaTenancy tenancy() const {
    ArenaTenancy t;
    t.value_of = {0, 1, 2};
    t.offset = {0, 8, 16};
    t.needed_until = {1, 1, ArenaTenancy::kNeededToEnd};
    t.op_reads = {{0}, {0, 1}};
    return t;
  }
  TensorRef ref(const Tensor& t, int32_t index, int64_t offset, bool is_output) {
    return TensorRef{&t, arena.data() + offset, index, is_output, true};
  }
};

TEST(WholeArenaChecking, StoreOverAValueALaterOpNeedsIsAClobber) {
  ThreeTensors m;
  CheckingMemory memory(m.arena.data(), 24, m.tenancy());
  memory.hold(0, 0, 8);  // A is a graph input
  memory.begin_op(0);
  // B placed over A's last 2 bytes (offset 6): op 1 still needs A.
  TensorRef b_out = m.ref(m.b, 1, 6, true);
  for (int64_t i = 0; i < 8; ++i) memory.store<int8_t>(b_out, i, 1);
  std::vector<Clobber> clobbers = memory.clobbers();
  ASSERT_EQ(clobbers.size(), 1u);
  EXPECT_EQ(clobbers[0].op, 0);
  EXPECT_EQ(clobbers[0].access, Clobber::Access::kStore);
  EXPECT_EQ(clobbers[0].writer, 1);
  EXPECT_EQ(clobbers[0].tensor, 0);
  EXPECT_EQ(clobbers[0].byte_offset, 6);  // two stores, one run
  EXPECT_EQ(clobbers[0].bytes, 2);
  // Op 1 then reads A's lost bytes: a load clobber, also one run.
  memory.begin_op(1);
  TensorRef a_in = m.ref(m.a, 0, 0, false);
  for (int64_t i = 0; i < 8; ++i) memory.load<int8_t>(a_in, i);
  clobbers = memory.clobbers();
  ASSERT_EQ(clobbers.size(), 2u);
  EXPECT_EQ(clobbers[1].op, 1);
  EXPECT_EQ(clobbers[1].access, Clobber::Access::kLoad);
  EXPECT_EQ(clobbers[1].writer, 1);
  EXPECT_EQ(clobbers[1].tensor, 0);
  EXPECT_EQ(clobbers[1].byte_offset, 6);
  EXPECT_EQ(clobbers[1].bytes, 2);
}

TEST(WholeArenaChecking, OverwritingADyingInputIsSafeUntilItIsReadAgain) {
  ThreeTensors m;
  CheckingMemory memory(m.arena.data(), 24, m.tenancy());
  memory.hold(0, 0, 8);
  memory.begin_op(0);
  TensorRef b_out = m.ref(m.b, 1, 8, true);
  for (int64_t i = 0; i < 8; ++i) memory.store<int8_t>(b_out, i, 1);
  memory.begin_op(1);
  // C over A and B, both dying here: each byte read before it is written.
  TensorRef a_in = m.ref(m.a, 0, 0, false), b_in = m.ref(m.b, 1, 8, false), c_out = m.ref(m.c, 2, 4, true);
  for (int64_t i = 0; i < 4; ++i) memory.load<int8_t>(a_in, i);
  for (int64_t i = 0; i < 8; ++i) {
    if (i + 4 < 8) memory.load<int8_t>(a_in, i + 4);
    else memory.load<int8_t>(b_in, i - 4);
    memory.store<int8_t>(c_out, i, 2);
  }
  EXPECT_TRUE(memory.clobbers().empty());
  // Reading A's byte 4 again, after C's element 0 replaced it, is the clobber.
  memory.load<int8_t>(a_in, 4);
  ASSERT_TRUE(memory.clobber().has_value());
  EXPECT_EQ(memory.clobber()->access, Clobber::Access::kLoad);
  EXPECT_EQ(memory.clobber()->writer, 2);
  EXPECT_EQ(memory.clobber()->tensor, 0);
  EXPECT_EQ(memory.clobber()->byte_offset, 4);
}

TEST(WholeArenaChecking, GraphOutputsAreNeededToTheEnd) {
  ThreeTensors m;
  ArenaTenancy tenancy = m.tenancy();
  tenancy.op_reads.push_back({});  // an op 2 that reads nothing and writes A over C
  CheckingMemory memory(m.arena.data(), 24, tenancy);
  memory.begin_op(1);
  TensorRef c_out = m.ref(m.c, 2, 16, true);
  memory.store<int8_t>(c_out, 0, 3);
  memory.begin_op(2);
  TensorRef a_out = m.ref(m.a, 0, 16, true);
  memory.store<int8_t>(a_out, 0, 4);
  ASSERT_TRUE(memory.clobber().has_value());
  EXPECT_EQ(memory.clobber()->op, 2);
  EXPECT_EQ(memory.clobber()->tensor, 2);
}

// dmo's plan of tiny_resnet8_int8 with tensor 24 (op 2's output) moved over
// the last 16 bytes of tensor 22, which op 3 still reads.
struct Resnet8Case {
  Graph graph;
  TensorPlacement placement;
};

Resnet8Case resnet8_with_tensor_24_over_22(const std::string& shared) {
  Resnet8Case c{read_tflite_file(shared + "/models/tiny_resnet8_int8.tflite"), {}};
  c.placement = dmo_placement(c.graph, plan_model(c.graph));
  const Subgraph& sg = c.graph.main();
  const int64_t end_of_22 = c.placement.offsets[22] + sg.tensors[22].byte_size;
  c.placement.offsets[24] = end_of_22 - 16;
  c.placement.arena_size = std::max(c.placement.arena_size, c.placement.offsets[24] + sg.tensors[24].byte_size);
  return c;
}

TEST(VerifyFindings, Resnet8TensorOverTheEndOfALiveTensor) {
  DMO_REQUIRE_SHARED(shared);
  const Resnet8Case c = resnet8_with_tensor_24_over_22(shared);
  EXPECT_EQ(c.placement.offsets[24], 33296);
  EXPECT_EQ(c.placement.arena_size, 49680);
  // The validator needs no input; the checked run finds the clobbers
  // whatever the input (a plain run of seed 1 happens to give the right outputs).
  const std::vector<std::string> errors = validate_placement(c.graph, c.placement);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("tensors 22 [16928, 33312) and 24 [33296, 49680)"), std::string::npos) << errors[0];
  for (uint32_t seed = 1; seed <= 5; ++seed) {
    SCOPED_TRACE(fmt::format("seed {}", seed));
    const VerifyResult result = verify_placement(c.graph, c.placement, pattern_input(c.graph.main(), seed));
    EXPECT_FALSE(result.ok());
    ASSERT_EQ(result.clobbers.size(), 2u) << result.describe(c.graph);
    // Op 2 writes 24 over 22's last 16 bytes; op 3 (ADD) then reads them.
    const Clobber& store = result.clobbers[0];
    EXPECT_EQ(store.op, 2);
    EXPECT_EQ(store.access, Clobber::Access::kStore);
    EXPECT_EQ(store.writer, 24);
    EXPECT_EQ(store.tensor, 22);
    EXPECT_EQ(store.byte_offset, 16368);
    EXPECT_EQ(store.bytes, 16);
    const Clobber& load = result.clobbers[1];
    EXPECT_EQ(load.op, 3);
    EXPECT_EQ(load.access, Clobber::Access::kLoad);
    EXPECT_EQ(load.writer, 24);
    EXPECT_EQ(load.tensor, 22);
    EXPECT_EQ(load.byte_offset, 16368);
    EXPECT_EQ(load.bytes, 16);
  }
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("dmo_verify_" + std::to_string(::getpid()) + "_" + name)).string();
}

void write_placement(const std::string& path, const TensorPlacement& p) {
  std::ofstream(path) << nlohmann::json{{"arena_bytes", p.arena_size}, {"offsets", p.offsets},
                                        {"descending_ops", p.descending_ops}}
                             .dump();
}

TEST(VerifyFindings, Resnet8PlanFileIsExit1NamingBothTensors) {
  DMO_REQUIRE_SHARED(shared);
  const Resnet8Case c = resnet8_with_tensor_24_over_22(shared);
  const std::string model = shared + "/models/tiny_resnet8_int8.tflite", file = temp_path("resnet8.json");
  write_placement(file, c.placement);
  auto text = run_dmo({"verify", model, "--plan", file});
  auto json = run_dmo({"verify", model, "--plan", file, "--json"});
  std::filesystem::remove(file);
  EXPECT_EQ(text.exit_status, 1) << text.out << text.err;
  EXPECT_NE(text.out.find("clobber: op 2 (CONV_2D) wrote tensor 24 '"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("over 16 bytes [16368, 16384) of tensor 22 '"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("invalid plan: tensors 22 [16928, 33312) and 24"), std::string::npos) << text.out;
  ASSERT_EQ(json.exit_status, 1) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["plan_source"], "file");
  EXPECT_EQ(j["arena_bytes"], 49680);
  EXPECT_EQ(j["ok"], false);
  EXPECT_EQ(j["validator_errors"].size(), 1u);
  ASSERT_EQ(j["clobbers"].size(), 2u);
  EXPECT_EQ(j["clobbers"][0],
            (nlohmann::json{{"op", 2}, {"op_kind", "CONV_2D"}, {"access", "store"}, {"writer_tensor", 24},
                            {"victim_tensor", 22}, {"first_byte", 16368}, {"bytes", 16}}));
}

TEST(VerifyFindings, TensorReadButNeverWritten) {
  DMO_REQUIRE_SHARED(shared);
  const std::string model = shared + "/models/litert_add_shared_tensors.tflite";
  const Graph graph = read_tflite_file(model);
  const std::vector<UnwrittenRead> unwritten = unwritten_read_tensors(graph.main());
  ASSERT_EQ(unwritten.size(), 1u);
  EXPECT_EQ(unwritten[0].tensor, 0);
  EXPECT_EQ(unwritten[0].op, 1);
  const std::string line = "tensor 0 'add' is read by op 1 (ADD) but no op writes it";
  auto verify = run_dmo({"verify", model});
  EXPECT_EQ(verify.exit_status, 1) << verify.out << verify.err;
  EXPECT_NE(verify.out.find(line), std::string::npos) << verify.out;
  auto plan = run_dmo({"plan", model});
  EXPECT_EQ(plan.exit_status, 0) << plan.err;
  EXPECT_NE(plan.err.find("warning: " + line + "; its value is whatever the arena held"), std::string::npos)
      << plan.err;
}

TEST(VerifyFindings, EveryZooTensorIsWrittenBeforeItIsRead) {
  EXPECT_TRUE(unwritten_read_tensors(build_zoo_model("mobilenet_v2_0.35_96_int8").main()).empty());
}

// A zoo model carrying dmo's ascending plan as its OfflineMemoryAllocation,
// the way `dmo export` writes it.
Graph with_ascending_offline_plan(const std::string& name) {
  Graph graph = build_zoo_model(name);
  PlanOptions ascending;
  ascending.allow_descending = false;
  const TensorPlacement placement = dmo_placement(graph, plan_model(graph, ascending));
  OfflinePlan plan{0, static_cast<int32_t>(graph.subgraphs.size()), {}};
  for (int64_t offset : placement.offsets) plan.offsets.push_back(static_cast<int32_t>(offset));
  graph.offline_plan = plan;
  return graph;
}

TEST(VerifyFindings, OfflinePlanIsVerifiedByDefault) {
  Graph graph = with_ascending_offline_plan("mobilenet_v1_0.25_128_int8");
  const PlanToVerify chosen = choose_plan_to_verify(graph, "");
  EXPECT_EQ(chosen.source, PlanSource::kOfflinePlan);
  EXPECT_EQ(chosen.unplanned_tensors, 0);
  EXPECT_TRUE(chosen.placement.descending_ops.empty());
  const std::vector<uint8_t> input = pattern_input(graph.main(), 1);
  const VerifyResult good = verify_plan(graph, chosen.placement, input);
  EXPECT_TRUE(good.ok()) << good.describe(graph);
  EXPECT_EQ(choose_plan_to_verify(graph, "dmo").source, PlanSource::kDmo);

  // Op 2's output moved one byte over the end of op 1's output, which op 2
  // reads: the offline plan is wrong, and verify says so.
  const Op& op2 = graph.main().ops[2];
  const int32_t in = op2.inputs[0], out = op2.outputs[0];
  std::vector<int32_t>& offsets = graph.offline_plan->offsets;
  offsets[static_cast<size_t>(out)] =
      offsets[static_cast<size_t>(in)] + static_cast<int32_t>(graph.main().tensors[static_cast<size_t>(in)].byte_size) - 1;
  const VerifyResult bad = verify_plan(graph, choose_plan_to_verify(graph, "").placement, input);
  EXPECT_FALSE(bad.ok());
  const std::string pair = fmt::format("tensors {} [", in);
  EXPECT_TRUE(std::any_of(bad.validator_errors.begin(), bad.validator_errors.end(), [&](const std::string& e) {
    return e.find(pair) != std::string::npos && e.find(fmt::format(" and {} [", out)) != std::string::npos;
  })) << bad.describe(graph);
  EXPECT_TRUE(std::any_of(bad.clobbers.begin(), bad.clobbers.end(), [&](const Clobber& c) {
    return c.op == 2 && c.writer == out && c.tensor == in;
  })) << bad.describe(graph);
}

TEST(VerifyFindings, OfflinePlanLeavingATensorToTflmPlacesItAfter) {
  Graph graph = with_ascending_offline_plan("mobilenet_v1_0.25_128_int8");
  const int32_t last = graph.main().ops.back().outputs[0];
  graph.offline_plan->offsets[static_cast<size_t>(last)] = -1;
  const PlanToVerify partial = offline_placement(graph);
  EXPECT_EQ(partial.unplanned_tensors, 1);
  // After every tensor the offline plan places, 16-byte aligned.
  const int64_t at = partial.placement.offsets[static_cast<size_t>(last)];
  EXPECT_EQ(at % 16, 0);
  for (size_t t = 0; t < graph.main().tensors.size(); ++t) {
    if (static_cast<int32_t>(t) == last || partial.placement.offsets[t] < 0) continue;
    EXPECT_GE(at, partial.placement.offsets[t] + graph.main().tensors[t].byte_size) << "tensor " << t;
  }
  EXPECT_EQ(partial.placement.arena_size,
            partial.placement.offsets[static_cast<size_t>(last)] + graph.main().tensors[static_cast<size_t>(last)].byte_size);
  const VerifyResult result = verify_plan(graph, partial.placement, pattern_input(graph.main(), 1));
  EXPECT_TRUE(result.ok()) << result.describe(graph);
}

TEST(VerifyFindings, ExportedModelVerifiesItsOfflinePlan) {
  const std::string file = temp_path("exported.tflite");
  auto exported = run_dmo({"export", "mobilenet_v2_0.35_96_int8", "-o", file});
  ASSERT_EQ(exported.exit_status, 0) << exported.err;
  auto text = run_dmo({"verify", file});
  auto json = run_dmo({"verify", file, "--json"});
  auto dmo = run_dmo({"verify", file, "--plan", "dmo", "--json"});
  std::filesystem::remove(file);
  EXPECT_EQ(text.exit_status, 0) << text.out << text.err;
  EXPECT_NE(text.out.find("the model's offline plan (OfflineMemoryAllocation), every op walking ascending"),
            std::string::npos)
      << text.out;
  ASSERT_EQ(json.exit_status, 0) << json.out << json.err;
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["plan_source"], "offline_plan");
  EXPECT_EQ(j["offline_unplanned_tensors"], 0);
  EXPECT_EQ(j["ok"], true);
  EXPECT_EQ(j["outputs_identical"], true);
  EXPECT_TRUE(j["clobbers"].empty());
  EXPECT_TRUE(j["validator_errors"].empty());
  ASSERT_EQ(dmo.exit_status, 0) << dmo.out << dmo.err;
  EXPECT_EQ(nlohmann::json::parse(dmo.out)["plan_source"], "dmo");
}

TEST(VerifyFindings, AcceleratorOfflinePlanWithoutKernelIsExit2) {
  DMO_REQUIRE_SHARED(shared);
  auto r = run_dmo({"verify", shared + "/models/tflm_person_detect_vela_int8.tflite"});
  EXPECT_EQ(r.exit_status, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("op 0 (ethos-u): custom op 'ethos-u' runs on an accelerator; dmo cannot execute it"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

}  // namespace
}  // namespace dmo

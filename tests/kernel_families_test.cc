// Kernel families (ops/kernel_family.h): plans made for the kernels the
// firmware links. Each cmsis family's kernels compute TFLM's values (every
// golden tensor of the int8 models), its plans pass the proof by execution
// with that family's loop orders, `all` is never larger than TFLM's own
// plan, and the command line names the families it plans for.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <unistd.h>

#include "dmo/error.h"
#include "dmo/overlap/safe_overlaps.h"
#include "dmo/pipeline/plan_pipeline.h"
#include "dmo/pipeline/verified_plan.h"
#include "dmo/runtime/input_pattern.h"
#include "dmo/runtime/interpreter.h"
#include "dmo/tflite/reader.h"
#include "dmo/zoo/graph_builder.h"
#include "dmo/zoo/zoo.h"
#include "test_support.h"

namespace dmo {
namespace {

constexpr KernelFamily kCmsisFamilies[] = {KernelFamily::kCmsisNn, KernelFamily::kCmsisNnDsp};

Schedule schedule_running(const Graph& graph, KernelFamily family) {
  Schedule schedule = default_schedule(graph);
  schedule.kernels = family;
  return schedule;
}

// The ops of subgraph 0 that `family` runs on CMSIS-NN kernels (its glue's
// choice), by index; throws when an op has no kernel at all.
std::map<int32_t, std::string> cmsis_ops(const Graph& graph, KernelFamily family) {
  const Interpreter interpreter(graph, unshared_placement(graph.main()), schedule_running(graph, family));
  std::map<int32_t, std::string> ops;
  for (size_t op = 0; op < graph.main().ops.size(); ++op) {
    const std::string& implementation = interpreter.prepared(static_cast<int32_t>(op)).implementation;
    if (!implementation.empty()) ops[static_cast<int32_t>(op)] = implementation;
  }
  return ops;
}

TEST(KernelFamilies, NamesReadBack) {
  for (KernelFamily family : kKernelFamilies) EXPECT_EQ(kernel_family_named(kernel_family_name(family)), family);
  EXPECT_FALSE(kernel_family_named("cmsis"));
  EXPECT_EQ(kernel_family_names(), "tflm-reference, cmsis-nn, cmsis-nn-dsp");
}

TEST(KernelFamilies, CmsisFamiliesRefuseDescendingWalks) {
  // A float conv: the glue leaves it to the reference kernel, which could
  // walk descending in dmo, but the firmware's kernels cannot.
  Graph graph = build_zoo_model("mobilenet_v1_0.25_128_float32");
  Schedule schedule = default_schedule(graph, {0});
  schedule.kernels = KernelFamily::kCmsisNn;
  try {
    Interpreter interpreter(graph, unshared_placement(graph.main()), schedule);
    FAIL() << "a cmsis family walked descending";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cmsis-nn kernels walk their output ascending only"), std::string::npos)
        << e.what();
  }
}

TEST(KernelFamilies, PlansForCmsisFamiliesWalkAscendingAndNameTheirKernels) {
  Graph graph = build_zoo_model("mobilenet_v1_0.25_128_int8");
  PlanOptions options;
  options.families = {KernelFamily::kTflmReference, KernelFamily::kCmsisNn, KernelFamily::kCmsisNnDsp};
  const PlanResult all = plan_model(graph, options);
  EXPECT_FALSE(all.allow_descending);
  EXPECT_TRUE(all.dmo.descending_ops.empty());
  EXPECT_LE(all.dmo.arena_size, all.tflm_greedy.arena_size);
  for (const OpOverlap& o : all.overlaps) {
    for (const FamilyOverlap& f : o.by_family) {
      ASSERT_TRUE(f.algorithmic) << "op " << o.pair.op << ": " << f.unavailable;
      if (o.pair.input_dies) {
        EXPECT_LE(o.used_bytes, *f.algorithmic) << "op " << o.pair.op << " " << kernel_family_name(f.family);
      }
    }
    if (o.pair.input_dies && o.algorithmic) {
      EXPECT_LE(o.used_bytes, *o.algorithmic) << "op " << o.pair.op;
    }
  }
}

// An op the glue runs on a CMSIS-NN function dmo does not mirror for its
// shape (here an int8 TRANSPOSE of a matrix by the identity, which
// arm_transpose_s8 would transpose all the same) gets no overlap under a
// cmsis family, whatever the reference kernel's order allows.
TEST(KernelFamilies, OpsOnUnmirroredCmsisNnFunctionsGetNoOverlap) {
  GraphBuilder b("kernel_families_test");
  const int32_t input = b.add_tensor("input", DataType::kInt8, {2, 3});
  const int32_t perm = b.add_constant_values<int32_t>("perm", DataType::kInt32, {2}, {0, 1});
  const int32_t output = b.add_tensor("output", DataType::kInt8, {2, 3});
  b.add_op(OpKind::kTranspose, {input, perm}, {output});
  b.set_inputs({input});
  b.set_outputs({output});
  const Graph graph = b.finish();
  SafeOverlapOptions options;
  options.alignment = 1;
  const std::vector<OpOverlap> reference = compute_safe_overlaps(graph, options);
  ASSERT_EQ(reference.size(), 1u);
  EXPECT_EQ(reference[0].used_bytes, 6);  // the identity: the whole 6 bytes
  for (KernelFamily family : kCmsisFamilies) {
    options.families = {KernelFamily::kTflmReference, family};
    const std::vector<OpOverlap> with_family = compute_safe_overlaps(graph, options);
    ASSERT_EQ(with_family[0].by_family.size(), 1u);
    EXPECT_EQ(with_family[0].by_family[0].implementation, "arm_transpose_s8 (order not mirrored by dmo)");
    EXPECT_EQ(with_family[0].by_family[0].algorithmic, 0);
    EXPECT_EQ(with_family[0].used_bytes, 0);
  }
}

// Proof by execution per family on the shared int8 models: the plan made
// for that family runs clobber-free with its kernels and gives the
// reference kernels' outputs; the plan for all families is never larger
// than TFLM's greedy plan and holds under every family.
TEST(KernelFamilies, SharedInt8ModelsVerifyUnderEveryFamily) {
  DMO_REQUIRE_SHARED(shared);
  int verified = 0;
  for (const std::string& path : test::tflite_files_in(shared + "/models")) {
    Graph graph = read_tflite_file(path);
    std::map<int32_t, std::string> on_cmsis;
    try {
      require_kernels(graph);
      on_cmsis = cmsis_ops(graph, KernelFamily::kCmsisNn);
    } catch (const Error& e) {
      continue;  // dmo cannot run it (accelerator ops): DmoPlanVerify names these
    }
    if (on_cmsis.empty()) continue;  // no op runs on CMSIS-NN: the reference plan is the family's
    SCOPED_TRACE(graph.source);
    const std::vector<uint8_t> input = pattern_input(graph.main(), 1);
    PlanOptions all_options;
    all_options.families = {kKernelFamilies.begin(), kKernelFamilies.end()};
    const PlanResult all = plan_model(graph, all_options);
    EXPECT_LE(all.dmo.arena_size, all.tflm_greedy.arena_size);
    const TensorPlacement all_placement = dmo_placement(graph, all);
    for (KernelFamily family : kKernelFamilies) {
      const VerifyResult in_all = verify_plan(graph, all_placement, input, nullptr, family);
      EXPECT_TRUE(in_all.ok()) << "plan for all, " << kernel_family_name(family) << ": " << in_all.describe(graph);
    }
    for (KernelFamily family : kCmsisFamilies) {
      PlanOptions options;
      options.families = {family};
      const PlanResult own = plan_model(graph, options);
      const VerifyResult result = verify_plan(graph, dmo_placement(graph, own), input, nullptr, family);
      EXPECT_TRUE(result.ok()) << kernel_family_name(family) << ": " << result.describe(graph);
    }
    ++verified;
  }
  std::cout << "[          ] " << verified << " shared models with ops on CMSIS-NN verified under every family\n";
}

// Every golden tensor of the models whose ops run on CMSIS-NN: the family's
// kernels compute TFLM's bytes.
class CmsisGolden : public ::testing::TestWithParam<test::GoldenCase> {};

TEST_P(CmsisGolden, EveryTensorMatchesTflm) {
  DMO_REQUIRE_SHARED(shared);
  const test::GoldenCase& c = GetParam();
  Graph graph = read_tflite_file(shared + "/models/" + c.model + ".tflite");
  try {
    require_kernels(graph);
  } catch (const Error& e) {
    GTEST_SKIP() << c.model << ": " << e.what();
  }
  const std::vector<test::GoldenTensor> rows = test::read_golden_tensors(c.stem(shared) + ".tsv");
  const std::vector<uint8_t> input = test::read_file(c.stem(shared) + ".in");
  for (KernelFamily family : kCmsisFamilies) {
    const std::map<int32_t, std::string> on_cmsis = cmsis_ops(graph, family);
    if (on_cmsis.empty()) GTEST_SKIP() << c.model << ": no op runs on a CMSIS-NN kernel";
    Interpreter unshared(graph, unshared_placement(graph.main()), schedule_running(graph, family));
    unshared.set_inputs(input);
    unshared.run();
    for (const test::GoldenTensor& row : rows) {
      if (graph.main().tensors[static_cast<size_t>(row.tensor)].is_variable) continue;
      const auto op = on_cmsis.find(row.first_op);
      EXPECT_EQ(test::fnv1a64_hex(unshared.tensor_bytes(row.tensor)), row.fnv)
          << kernel_family_name(family) << ": tensor " << row.tensor << " '" << row.name << "' written by op "
          << row.first_op << (op == on_cmsis.end() ? "" : " (" + op->second + ")");
    }
  }
}

std::vector<test::GoldenCase> seed_one_cases() {
  std::vector<test::GoldenCase> cases;
  for (const test::GoldenCase& c : test::golden_cases()) {
    if (c.seed == 1) cases.push_back(c);
  }
  return cases;
}

std::string case_name(const ::testing::TestParamInfo<test::GoldenCase>& info) {
  std::string name = info.param.model;
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Tflm, CmsisGolden, ::testing::ValuesIn(seed_one_cases()), case_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CmsisGolden);

// The README's arena table per family on the MLPerf Tiny models is what the
// planner computes.
TEST(KernelFamilies, ReadmeTableOfArenasPerFamily) {
  DMO_REQUIRE_SHARED(shared);
  std::ifstream readme(std::string(DMO_SOURCE_DIR) + "/README.md");
  std::string line;
  bool in_table = false;
  int rows = 0;
  while (std::getline(readme, line)) {
    if (line.starts_with("| model | TFLM greedy (reference) |")) in_table = true;
    if (!in_table) continue;
    if (!line.starts_with("| tiny_")) {
      if (rows > 0) break;
      continue;
    }
    std::vector<std::string> cells;
    std::stringstream row(line.substr(1));
    for (std::string cell; std::getline(row, cell, '|');) {
      cell.erase(std::remove(cell.begin(), cell.end(), ' '), cell.end());
      cell.erase(std::remove(cell.begin(), cell.end(), ','), cell.end());
      cells.push_back(cell);
    }
    ASSERT_EQ(cells.size(), 7u) << line;
    const Graph graph = read_tflite_file(shared + "/models/" + cells[0] + ".tflite");
    auto plan = [&](std::vector<KernelFamily> families) {
      PlanOptions options;
      options.allow_descending = false;
      options.families = std::move(families);
      return plan_model(graph, options);
    };
    const PlanResult reference = plan({KernelFamily::kTflmReference});
    const PlanResult all = plan({kKernelFamilies.begin(), kKernelFamilies.end()});
    EXPECT_EQ(cells[1], std::to_string(reference.tflm_greedy.arena_size)) << line;
    EXPECT_EQ(cells[2], std::to_string(reference.dmo.arena_size)) << line;
    EXPECT_EQ(cells[3], std::to_string(plan({KernelFamily::kCmsisNn}).dmo.arena_size)) << line;
    EXPECT_EQ(cells[4], std::to_string(plan({KernelFamily::kCmsisNnDsp}).dmo.arena_size)) << line;
    EXPECT_EQ(cells[5], std::to_string(all.dmo.arena_size)) << line;
    EXPECT_EQ(cells[6], std::to_string(all.tflm_greedy.arena_size)) << line;
    ++rows;
  }
  EXPECT_EQ(rows, 4) << "README.md: the table of arenas per kernel family";
}

TEST(KernelFamiliesCli, AnUnknownFamilyIsOneLineListingTheFamilies) {
  for (const char* command : {"plan", "verify", "export", "overlap"}) {
    // CLI11 checks the option before export looks for its output files.
    auto r = test::run_dmo({command, "mobilenet_v1_0.25_128_int8", "--kernels", "cmsis"});
    EXPECT_EQ(r.exit_status, 2) << command;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << command << ": " << r.err;
    EXPECT_NE(r.err.find("tflm-reference,cmsis-nn,cmsis-nn-dsp,all"), std::string::npos) << command << ": " << r.err;
  }
}

TEST(KernelFamiliesCli, PlanAndExportNameTheirKernels) {
  auto plan = test::run_dmo({"plan", "mobilenet_v1_0.25_128_int8", "--kernels", "cmsis-nn-dsp", "--json"});
  ASSERT_EQ(plan.exit_status, 0) << plan.err;
  auto j = nlohmann::json::parse(plan.out);
  EXPECT_EQ(j["kernels"], nlohmann::json::array({"cmsis-nn-dsp"}));
  EXPECT_EQ(j["walks"], "ascending");
  EXPECT_TRUE(j["descending_ops"].empty());

  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / fmt::format("dmo_kernel_families_test_{}", ::getpid());
  std::filesystem::create_directories(dir);
  const std::string header_path = (dir / "m.h").string(), reference_path = (dir / "r.h").string();
  auto exported = test::run_dmo({"export", "mobilenet_v1_0.25_128_int8", "--c-header", header_path, "--json"});
  ASSERT_EQ(exported.exit_status, 0) << exported.err;
  auto e = nlohmann::json::parse(exported.out);
  EXPECT_EQ(e["kernels"], "all (tflm-reference, cmsis-nn, cmsis-nn-dsp)");
  const std::string safe_for = e["safe_for"];
  EXPECT_NE(safe_for.find("TFLM's reference kernels, TFLM's CMSIS-NN kernels built without ARM_MATH_DSP (portable C) "
                          "and TFLM's CMSIS-NN kernels built with ARM_MATH_DSP"),
            std::string::npos)
      << safe_for;
  auto bytes = test::read_file(header_path);
  const std::string header(bytes.begin(), bytes.end());
  EXPECT_NE(header.find("// Safe for: TFLM's reference kernels, TFLM's CMSIS-NN kernels"), std::string::npos)
      << header;

  auto reference = test::run_dmo({"export", "mobilenet_v1_0.25_128_int8", "--kernels", "tflm-reference",
                                  "--c-header", reference_path, "--json"});
  ASSERT_EQ(reference.exit_status, 0) << reference.err;
  EXPECT_NE(nlohmann::json::parse(reference.out)["safe_for"].get<std::string>().find(
                "TFLM's reference kernels, every op walking ascending (not cmsis-nn, cmsis-nn-dsp"),
            std::string::npos)
      << reference.out;
  std::filesystem::remove_all(dir);
}

TEST(KernelFamiliesCli, VerifyRunsThePlanUnderEachFamily) {
  auto r = test::run_dmo({"verify", "mobilenet_v1_0.25_128_int8", "--kernels", "all"});
  ASSERT_EQ(r.exit_status, 0) << r.out << r.err;
  for (const char* family : {"tflm-reference", "cmsis-nn", "cmsis-nn-dsp"}) {
    EXPECT_NE(r.out.find(fmt::format(", {} kernels: ", family)), std::string::npos) << r.out;
  }
}

}  // namespace
}  // namespace dmo

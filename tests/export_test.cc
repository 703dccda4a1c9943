// `dmo export` and `dmo zoo` end to end: every shared model exports to a file
// that differs from it only by dmo's plan, imports back to the same Graph,
// and (where dmo has the kernels) runs correctly inside the plan read back
// from the file; errors leave no file behind.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "dmo/error.h"
#include "dmo/model/lifetime.h"
#include "dmo/model/model_timeline.h"
#include "dmo/plan/tflm_layout.h"
#include "dmo/report/plan_report.h"
#include "dmo/runtime/input_pattern.h"
#include "dmo/runtime/interpreter.h"
#include "dmo/runtime/plan_verifier.h"
#include "dmo/runtime/tensor_placement.h"
#include "dmo/tflite/offline_plan.h"
#include "dmo/tflite/reader.h"
#include "dmo/tflite/writer.h"
#include "dmo/zoo/zoo.h"
#include "graph_equality.h"
#include "plan_file_check.h"
#include "test_build.h"
#include "test_support.h"
#include "tflite_subset_generated.h"
#include "tflite_test_model.h"

namespace dmo {
namespace {

namespace fs = std::filesystem;
using test::run_dmo;

// What `dmo export` plans by default: TFLM's ascending walks, safe for every
// kernel family.
PlanResult export_report(const Graph& graph) {
  PlanOptions options;
  options.allow_descending = false;
  options.families = {kKernelFamilies.begin(), kKernelFamilies.end()};
  return plan_model(graph, options);
}

// A fresh directory per test, removed afterwards.
class ScratchDir {
 public:
  ScratchDir() {
    static int counter = 0;
    path_ = fs::temp_directory_path() / ("dmo_export_test_" + std::to_string(::getpid()) + "_" +
                                         std::to_string(counter++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  size_t entry_count() const {
    return static_cast<size_t>(std::distance(fs::directory_iterator(path_), fs::directory_iterator()));
  }

 private:
  fs::path path_;
};

void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

bool verifies(const std::vector<uint8_t>& bytes) {
  flatbuffers::Verifier verifier(bytes.data(), bytes.size(), 64, 10'000'000);
  return tfl::VerifyModelBuffer(verifier);
}

// dmo's offsets for the planned tensors of subgraph 0, -1 for everything
// else (scratch buffers are TFLM's to place): what export writes when it
// deploys dmo's plan, computed here independently of the command.
OfflinePlan expected_plan(const Graph& graph, const PlanResult& report) {
  OfflinePlan plan{0, static_cast<int32_t>(graph.subgraphs.size()),
                   std::vector<int32_t>(graph.total_tensor_count(), -1)};
  for (size_t b = 0; b < report.problem.buffers.size(); ++b) {
    const int32_t t = report.problem.buffers[b].tensor;
    if (t == kNoTensor) continue;
    plan.offsets[static_cast<size_t>(t)] = static_cast<int32_t>(report.dmo.offsets[b]);
  }
  return plan;
}

// The head TFLM needs for the offline offsets a file carries, by TFLM's
// rules: those tensors exactly there, every size rounded up to 16, the
// other tensors and the kernels' scratch buffers placed by its greedy
// first fit around them.
int64_t tflm_head_for(const Graph& graph, const PlanResult& report) {
  std::vector<int64_t> offsets(report.tflm_problem.buffers.size(), -1);
  for (size_t b = 0; b < offsets.size(); ++b) {
    const int32_t t = report.tflm_problem.buffers[b].tensor;
    if (t != kNoTensor && graph.offline_plan) offsets[b] = graph.offline_plan->offsets[static_cast<size_t>(t)];
  }
  return plan_tflm_with_offsets(report.tflm_problem, offsets).arena_size;
}

// The placement TFLM would use: subgraph 0's offsets as the file says them.
// Every subgraph's tensors, in the offline plan's flat order.
TensorPlacement placement_read_back(const Graph& graph) {
  TensorPlacement placement;
  placement.offsets.assign(graph.total_tensor_count(), -1);
  for (size_t t = 0; t < placement.offsets.size(); ++t) {
    int32_t offset = graph.offline_plan->offsets[t];
    if (offset < 0) continue;
    placement.offsets[t] = offset;
    placement.arena_size =
        std::max(placement.arena_size, offset + flat_tensor(graph, static_cast<int32_t>(t)).byte_size);
  }
  return placement;
}

bool runs_unshared(const Graph& graph) {
  try {
    Interpreter interpreter(graph, unshared_placement(graph.main()));
    interpreter.set_inputs(pattern_input(graph.main(), 1));
    interpreter.run();
    return true;
  } catch (const Error&) {
    return false;
  }
}

struct ExportCheck {
  size_t original_bytes = 0, exported_bytes = 0;
  int64_t arena_bytes = 0, tflm_greedy_bytes = 0;
  std::string plan;  // which plan export deployed
  bool ran = false;
  std::string skipped;  // the runtime's refusal when the model cannot run
  test::PlanFileFacts facts;
};

// Exports `model` with the command line and checks the result every way.
ExportCheck export_and_check(const std::string& model, const std::string& out) {
  ExportCheck check;
  auto r = run_dmo({"export", model, "-o", out, "--json"});
  EXPECT_EQ(r.exit_status, 0) << r.err;
  if (r.exit_status != 0) return check;
  auto j = nlohmann::json::parse(r.out);
  const std::vector<uint8_t> original = test::read_file(model);
  const std::vector<uint8_t> exported = test::read_file(out);
  check.original_bytes = original.size();
  check.exported_bytes = exported.size();
  EXPECT_TRUE(verifies(exported));
  EXPECT_EQ(test::plan_file_difference(original, exported, &check.facts), "");
  // Alignment is kept (checked above: same position mod 16); some converters
  // never aligned their buffers, so 16 is only required where it was.

  Graph before = read_tflite_file(model);
  Graph after = read_tflite_bytes(exported, out);
  EXPECT_EQ(test::graph_difference(before, after), "");
  // TFLM runs its kernels ascending: the export plans for that walk only.
  PlanResult report = export_report(before);
  EXPECT_TRUE(report.dmo.descending_ops.empty());
  EXPECT_TRUE(after.offline_plan.has_value());
  if (!after.offline_plan) return check;
  check.plan = j["plan"].get<std::string>();
  if (check.plan == "dmo") {
    EXPECT_EQ(after.offline_plan->offsets, expected_plan(before, report).offsets);
  } else if (check.plan == "model") {
    EXPECT_TRUE(before.offline_plan.has_value());
    if (before.offline_plan) {
      EXPECT_EQ(after.offline_plan->offsets, before.offline_plan->offsets);
    }
  }
  EXPECT_EQ(after.offline_plan->subgraph_count, static_cast<int32_t>(before.subgraphs.size()));
  check.arena_bytes = j["arena_bytes"].get<int64_t>();
  check.tflm_greedy_bytes = j["tflm_greedy_bytes"].get<int64_t>();
  EXPECT_EQ(check.tflm_greedy_bytes, report.tflm_greedy.arena_size);
  // Never worse than TFLM as deployed: the head TFLM needs with the file
  // export wrote is at most the head it needs with the model as it was.
  const int64_t with_export = tflm_head_for(after, report);
  const int64_t without_export = tflm_head_for(before, report);
  EXPECT_EQ(without_export, report.tflm_greedy.arena_size);
  EXPECT_EQ(check.arena_bytes, with_export);
  EXPECT_EQ(j["without_export_bytes"].get<int64_t>(), without_export);
  EXPECT_LE(with_export, without_export);
  if (check.plan == "dmo") {
    EXPECT_EQ(with_export, report.dmo.arena_size);
  }
  // TFLM's rule straight from the written words: every planned tensor ends
  // at its offset plus its size rounded up to 16; the head is the highest
  // end, or more where TFLM's first fit puts scratch buffers above it.
  int64_t highest_end = 0;
  for (size_t t = 0; t < after.total_tensor_count(); ++t) {
    const int64_t offset = after.offline_plan->offsets[t];
    const Tensor& tensor = flat_tensor(after, static_cast<int32_t>(t));
    if (offset < 0 || !tflm_plans_tensor(tensor)) continue;
    highest_end = std::max(highest_end, offset + (tensor.byte_size + 15) / 16 * 16);
  }
  EXPECT_GE(check.arena_bytes, highest_end);
  if (report.scratch_buffers.empty() && check.plan == "dmo") {
    EXPECT_EQ(check.arena_bytes, highest_end);
  }
  size_t planned = 0;
  for (size_t t = 0; t < before.total_tensor_count(); ++t) planned += after.offline_plan->offsets[t] >= 0;
  EXPECT_EQ(j["tensors_planned"].get<size_t>(), planned);
  EXPECT_EQ(j["output"], out);

  // The plan as TFLM would read it must hold the model's arena safely.
  TensorPlacement placement = placement_read_back(after);
  EXPECT_LE(placement.arena_size, check.arena_bytes);
  try {
    VerifyResult result = verify_placement(after, placement, pattern_input(after.main(), 1));
    EXPECT_TRUE(result.ok()) << result.describe(after);
    check.ran = true;
  } catch (const Error& e) {
    // Only a model dmo cannot run at all (missing kernel, unsupported types) may skip.
    EXPECT_FALSE(runs_unshared(after)) << "runs unshared but not in the exported plan: " << e.what();
    check.skipped = e.what();
  }
  return check;
}

TEST(ExportShared, EveryModelExportsLosslesslyAndRunsInItsPlan) {
  DMO_REQUIRE_SHARED(shared);
  ScratchDir dir;
  size_t ran = 0, total = 0;
  std::vector<std::string> unsupported_types;
  for (const std::string& model : test::tflite_files_in(shared + "/models")) {
    SCOPED_TRACE(model);
    std::string out = dir.file(test::file_stem(model) + ".tflite");
    ExportCheck check = export_and_check(model, out);
    ++total;
    ran += check.ran ? 1 : 0;
    std::printf("[ export   ] %-34s %8zu -> %8zu bytes (+%4zu)  %s plan, TFLM head %8lld (without %8lld)  16-aligned data %3zu/%3zu%s\n",
                test::file_stem(model).c_str(), check.original_bytes, check.exported_bytes,
                check.exported_bytes - check.original_bytes, check.plan.c_str(), static_cast<long long>(check.arena_bytes),
                static_cast<long long>(check.tflm_greedy_bytes), check.facts.aligned_data_buffers,
                check.facts.data_buffers, check.ran ? "  ran in plan" : "");
    if (auto missing = test::missing_kernel(check.skipped)) {
      std::printf("[ skipped  ] %s\n", test::describe_skip(test::file_stem(model), *missing).c_str());
    } else if (!check.skipped.empty()) {
      unsupported_types.push_back(test::file_stem(model));
    }
  }
  EXPECT_EQ(total, 44u);
  EXPECT_EQ(ran, 41u);
  // A float model with int8 weights (hybrid): dmo's conv has no such variant.
  EXPECT_EQ(unsupported_types, std::vector<std::string>{"tiny_kws_ref_model_float32"});
  std::printf("[ export   ] %zu of %zu models ran inside the plan read back from the file\n", ran, total);
}

TEST(ExportShared, ReplacesAnExistingPlanKeepingItsBuffer) {
  DMO_REQUIRE_SHARED(shared);
  ScratchDir dir;
  const std::string model = shared + "/models/tflm_person_detect_vela_int8.tflite";
  Graph before = read_tflite_file(model);
  ASSERT_TRUE(before.offline_plan.has_value());
  uint32_t old_buffer = 0;
  size_t old_entry = 0;
  for (size_t m = 0; m < before.metadata.size(); ++m) {
    if (before.metadata[m].name == kOfflinePlanMetadataName) {
      old_buffer = before.metadata[m].buffer_index;
      old_entry = m;
    }
  }
  // Vela's plan shares its NPU tensors' bytes; dmo keeps the ethos-u op's
  // tensors where Vela put them, does no better, and keeps Vela's plan,
  // rewritten into the same metadata buffer.
  ExportCheck check = export_and_check(model, dir.file("vela.tflite"));
  EXPECT_EQ(check.plan, "model");
  EXPECT_EQ(check.arena_bytes, 74544);  // Vela's 74,464 bytes and the ethos-u kernel's two scratch buffers
  EXPECT_TRUE(check.facts.plan_replaced);
  EXPECT_EQ(check.facts.plan_buffer, old_buffer);
  Graph after = read_tflite_file(dir.file("vela.tflite"));
  EXPECT_EQ(after.metadata.size(), before.metadata.size());
  EXPECT_EQ(after.metadata[old_entry].buffer_index, old_buffer);
  EXPECT_EQ(after.offline_plan->offsets, before.offline_plan->offsets);
}

TEST(ExportShared, ReplacesAWorseExistingPlan) {
  DMO_REQUIRE_SHARED(shared);
  ScratchDir dir;
  // A model whose offline plan keeps every planned tensor apart: dmo's plan
  // needs fewer bytes in TFLM, so export replaces it.
  const std::string source = shared + "/models/tiny_vww_96_int8.tflite";
  Graph graph = read_tflite_file(source);
  OfflinePlan apart{0, static_cast<int32_t>(graph.subgraphs.size()),
                    std::vector<int32_t>(graph.total_tensor_count(), -1)};
  const TensorPlacement unshared = unshared_placement(graph.main());
  for (size_t t = 0; t < unshared.offsets.size(); ++t) apart.offsets[t] = static_cast<int32_t>(unshared.offsets[t]);
  const std::string model = dir.file("apart.tflite");
  write_bytes(model, with_offline_plan(test::read_file(source), apart, source));
  ExportCheck check = export_and_check(model, dir.file("replaced.tflite"));
  EXPECT_EQ(check.plan, "dmo");
  EXPECT_EQ(check.tflm_greedy_bytes, unshared.arena_size);
  EXPECT_LT(check.arena_bytes, check.tflm_greedy_bytes);
}

TEST(ExportShared, PrintsArenaBytes) {
  DMO_REQUIRE_SHARED(shared);
  ScratchDir dir;
  auto r = run_dmo({"export", shared + "/models/tiny_vww_96_int8.tflite", "-o", dir.file("vww.tflite")});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  Graph graph = read_tflite_file(shared + "/models/tiny_vww_96_int8.tflite");
  PlanResult report = export_report(graph);
  EXPECT_NE(r.out.find(fmt::format("with this plan: {} bytes", report.dmo.arena_size)), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("without it: 73728 bytes"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("dmo's plan: TFLM needs"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(dir.file("vww.tflite")), std::string::npos) << r.out;
  EXPECT_LT(report.dmo.arena_size, 73728);
}

// ---- command line, no shared files needed ----

TEST(ExportCli, ZooNameExportsLikeItsZooFile) {
  ScratchDir dir;
  const std::string name = "mobilenet_v1_0.25_128_int8";
  auto zoo = run_dmo({"zoo", name, "-o", dir.file("zoo.tflite")});
  ASSERT_EQ(zoo.exit_status, 0) << zoo.err;
  EXPECT_NE(zoo.out.find(dir.file("zoo.tflite")), std::string::npos) << zoo.out;
  ExportCheck check = export_and_check(dir.file("zoo.tflite"), dir.file("from_file.tflite"));
  EXPECT_TRUE(check.ran);
  auto direct = run_dmo({"export", name, "-o", dir.file("from_name.tflite")});
  ASSERT_EQ(direct.exit_status, 0) << direct.err;
  EXPECT_EQ(test::read_file(dir.file("from_name.tflite")), test::read_file(dir.file("from_file.tflite")));
}

// The arena to give TFLM: per family the head with the file plus the
// tail, the largest printed, in the JSON and in the C header.
TEST(ExportCli, GivesTheWholeArenaPerKernelFamily) {
  ScratchDir dir;
  auto r = run_dmo({"export", "mobilenet_v1_0.25_128_int8", "-o", dir.file("m.tflite"), "--c-header",
                    dir.file("m.h"), "--json"});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["tflm_arena"].size(), j["heads"].size());
  int64_t largest = 0;
  for (size_t f = 0; f < j["heads"].size(); ++f) {
    const nlohmann::json& a = j["tflm_arena"][f];
    EXPECT_EQ(a["kernels"], j["heads"][f]["kernels"]);
    EXPECT_EQ(a["head_bytes"], j["heads"][f]["with"]);
    ASSERT_TRUE(a["tail_bytes"].is_number()) << a.dump();
    EXPECT_GT(a["tail_bytes"].get<int64_t>(), 0);
    EXPECT_EQ(a["arena_bytes"].get<int64_t>(), a["head_bytes"].get<int64_t>() + a["tail_bytes"].get<int64_t>());
    largest = std::max(largest, a["arena_bytes"].get<int64_t>());
  }
  EXPECT_EQ(j["tflm_arena_bytes"].get<int64_t>(), largest);
  const std::vector<uint8_t> header_bytes = test::read_file(dir.file("m.h"));
  const std::string header(header_bytes.begin(), header_bytes.end());
  EXPECT_NE(header.find(fmt::format("_TFLM_ARENA_BYTES {}\n", largest)), std::string::npos) << header;
  auto text = run_dmo({"export", "mobilenet_v1_0.25_128_int8", "-o", dir.file("t.tflite")});
  ASSERT_EQ(text.exit_status, 0) << text.err;
  EXPECT_NE(text.out.find(fmt::format("give TFLM's MicroInterpreter {} bytes", largest)), std::string::npos)
      << text.out;
}

TEST(ExportCli, ZooWritesAModelThatImportsIdentical) {
  ScratchDir dir;
  const std::string name = "mobilenet_v2_0.35_96_uint8";
  auto r = run_dmo({"zoo", name, "-o", dir.file("v2.tflite")});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  auto bytes = test::read_file(dir.file("v2.tflite"));
  EXPECT_TRUE(verifies(bytes));
  Graph back = read_tflite_bytes(bytes, "v2");
  EXPECT_EQ(test::graph_difference(build_zoo_model(name), back, {.compare_description = false}), "");
  EXPECT_EQ(back.description, "dmo zoo " + name);
  EXPECT_EQ(dir.entry_count(), 1u);  // no temporary file left
}

TEST(ExportCli, ZooRefusesUnknownNamesWithoutWriting) {
  ScratchDir dir;
  auto r = run_dmo({"zoo", "mobilenet_v3_1.0_224_int8", "-o", dir.file("x.tflite")});
  EXPECT_EQ(r.exit_status, 2);
  EXPECT_NE(r.err.find("MobileNet version must be 1 or 2"), std::string::npos) << r.err;
  EXPECT_EQ(dir.entry_count(), 0u);
  EXPECT_EQ(run_dmo({"zoo", "mobilenet_v1_0.25_128_int8"}).exit_status, 2);  // -o is required
}

// Words of the array in a header written by --c-header.
std::vector<int32_t> header_words(const std::string& text) {
  std::vector<int32_t> words;
  auto open = text.find("] = {");
  auto close = text.find("};", open);
  std::string body = text.substr(open + 5, close - open - 5);
  const char* p = body.c_str();
  while (*p) {
    char* end = nullptr;
    long value = std::strtol(p, &end, 10);
    if (end == p) {  // a separator
      ++p;
      continue;
    }
    words.push_back(static_cast<int32_t>(value));
    p = end;
  }
  return words;
}

TEST(ExportCli, CHeaderHoldsThePlanWords) {
  ScratchDir dir;
  const std::string name = "mobilenet_v1_0.25_128_int8";
  auto r = run_dmo({"export", name, "--c-header", dir.file("plan.h"), "-o", dir.file("m.tflite")});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  std::string text;
  {
    auto bytes = test::read_file(dir.file("plan.h"));
    text.assign(bytes.begin(), bytes.end());
  }
  Graph graph = read_tflite_file(dir.file("m.tflite"));
  PlanResult report = export_report(graph);
  EXPECT_NE(text.find("static const int32_t mobilenet_v1_0_25_128_int8_offline_plan[MOBILENET_V1_0_25_128_INT8_"
                      "OFFLINE_PLAN_WORDS] = {"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(fmt::format("#define MOBILENET_V1_0_25_128_INT8_ARENA_BYTES {}\n", report.dmo.arena_size)),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("OfflineMemoryAllocation"), std::string::npos);
  auto encoded = encode_offline_plan(*graph.offline_plan);
  std::vector<int32_t> words(encoded.size() / 4);
  std::memcpy(words.data(), encoded.data(), encoded.size());
  EXPECT_EQ(header_words(text), words);

  // The header compiles as C and its macros agree with the array.
  if (std::system("command -v cc >/dev/null 2>&1") != 0) GTEST_SKIP() << "no C compiler";
  std::ofstream(dir.file("check.c")) << "#include \"plan.h\"\n"
                                        "int main(void) {\n"
                                        "  return sizeof mobilenet_v1_0_25_128_int8_offline_plan / sizeof(int32_t) ==\n"
                                        "             MOBILENET_V1_0_25_128_INT8_OFFLINE_PLAN_WORDS &&\n"
                                        "         mobilenet_v1_0_25_128_int8_offline_plan[2] + 3 ==\n"
                                        "             MOBILENET_V1_0_25_128_INT8_OFFLINE_PLAN_WORDS &&\n"
                                        "         MOBILENET_V1_0_25_128_INT8_ARENA_BYTES > 0 ? 0 : 1;\n"
                                        "}\n";
  std::string compile = "cc -std=c99 -Wall -Wextra -Werror -o '" + dir.file("check") + "' '" + dir.file("check.c") +
                        "' && '" + dir.file("check") + "'";
  EXPECT_EQ(std::system(compile.c_str()), 0) << compile;
}

TEST(ExportCli, CHeaderAloneWritesNoModel) {
  ScratchDir dir;
  auto r = run_dmo({"export", "mobilenet_v2_0.35_96_int8", "--c-header", dir.file("9 lives.h"), "--json"});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["output"].is_null());
  EXPECT_EQ(j["c_header"], dir.file("9 lives.h"));
  for (const char* key : {"model", "arena_bytes", "tflm_greedy_bytes", "tensors_planned"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(dir.entry_count(), 1u);
  auto bytes = test::read_file(dir.file("9 lives.h"));
  std::string text(bytes.begin(), bytes.end());
  // Identifiers come from the model name, sanitised.
  EXPECT_NE(text.find("mobilenet_v2_0_35_96_int8_offline_plan["), std::string::npos) << text;
}

TEST(ExportCli, NeedsAnOutput) {
  auto r = run_dmo({"export", "mobilenet_v1_0.25_128_int8"});
  EXPECT_EQ(r.exit_status, 2);
  EXPECT_NE(r.err.find("-o OUT.tflite"), std::string::npos) << r.err;
}

TEST(ExportCli, BrokenExistingPlanLeavesNoFile) {
  ScratchDir dir;
  test::TestModel m = test::small_conv_model();
  m.metadata.push_back({kOfflinePlanMetadataName, encode_offline_plan(OfflinePlan{0, 1, {0, -1}})});
  write_bytes(dir.file("broken.tflite"), test::write_test_model(m));
  auto r = run_dmo({"export", dir.file("broken.tflite"), "-o", dir.file("out.tflite"), "--c-header",
                    dir.file("out.h")});
  EXPECT_EQ(r.exit_status, 2);
  EXPECT_NE(r.err.find("OfflineMemoryAllocation"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("broken.tflite"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir.file("out.tflite")));
  EXPECT_EQ(dir.entry_count(), 1u);
}

TEST(ExportCli, UnwritableOutputIsExit2) {
  ScratchDir dir;
  auto r = run_dmo({"export", "mobilenet_v1_0.25_128_int8", "-o", dir.file("no/such/dir/out.tflite")});
  EXPECT_EQ(r.exit_status, 2);
  EXPECT_NE(r.err.find("cannot create"), std::string::npos) << r.err;
  EXPECT_EQ(dir.entry_count(), 0u);
}

TEST(ExportCli, OverwritesItsInputAtomically) {
  ScratchDir dir;
  write_bytes(dir.file("m.tflite"), test::write_test_model(test::small_conv_model()));
  auto r = run_dmo({"export", dir.file("m.tflite"), "-o", dir.file("m.tflite")});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_TRUE(read_tflite_file(dir.file("m.tflite")).offline_plan.has_value());
  EXPECT_EQ(dir.entry_count(), 1u);
}


// Graph inputs of subgraph 0 whose bytes another tensor of subgraph 0 takes
// in the exported words: counted here from the file alone.
std::vector<int32_t> inputs_sharing_bytes(const Graph& graph) {
  const Subgraph& sg = graph.main();
  const std::vector<int32_t>& at = graph.offline_plan->offsets;
  std::vector<int32_t> shared;
  for (int32_t input : sg.inputs) {
    const int64_t low = at[static_cast<size_t>(input)];
    const int64_t high = low + sg.tensors[static_cast<size_t>(input)].byte_size;
    for (size_t t = 0; t < sg.tensors.size(); ++t) {
      if (static_cast<int32_t>(t) == input || at[t] < 0 || sg.tensors[t].byte_size == 0) continue;
      if (at[t] < high && low < at[t] + sg.tensors[t].byte_size) {
        shared.push_back(input);
        break;
      }
    }
  }
  return shared;
}

TEST(ExportCli, SaysWhichKernelsAndWhetherInputsSurvive) {
  ScratchDir dir;
  const std::string name = "mobilenet_v1_0.25_128_int8";
  auto r = run_dmo({"export", name, "-o", dir.file("m.tflite"), "--c-header", dir.file("m.h"), "--json", "--kernels",
                    "tflm-reference"});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["plan"], "dmo");
  EXPECT_EQ(j["kernels"], "tflm-reference");
  EXPECT_NE(j["safe_for"].get<std::string>().find("TFLM's reference kernels, every op walking ascending"),
            std::string::npos);
  Graph graph = read_tflite_file(dir.file("m.tflite"));
  const std::vector<int32_t> shared = inputs_sharing_bytes(graph);
  ASSERT_FALSE(shared.empty()) << "the chain's first op overlaps its dying input";
  EXPECT_EQ(j["overwritten_inputs"].get<std::vector<int32_t>>(), shared);
  auto bytes = test::read_file(dir.file("m.h"));
  std::string text(bytes.begin(), bytes.end());
  EXPECT_NE(text.find("// Safe for: TFLM's reference kernels"), std::string::npos) << text;
  EXPECT_NE(text.find("graph inputs: overwritten during Invoke"), std::string::npos) << text;

  auto plain = run_dmo({"export", name, "-o", dir.file("m2.tflite")});
  ASSERT_EQ(plain.exit_status, 0) << plain.err;
  EXPECT_NE(plain.out.find("safe for: TFLM's reference kernels"), std::string::npos) << plain.out;
  EXPECT_NE(plain.out.find("graph inputs: overwritten during Invoke"), std::string::npos) << plain.out;
}

// Renaming a finished file over a device or pipe would replace the device
// itself (as root, /dev/null): such targets are written in place.
TEST(ExportCli, WritesIntoAPipeWithoutReplacingIt) {
  ScratchDir dir;
  const std::string fifo = dir.file("plan.fifo"), copy = dir.file("copy.h");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string command = "timeout 30 cat '" + fifo + "' > '" + copy + "' & '" + test::dmo_binary() +
                              "' export mobilenet_v1_0.25_96_int8 --c-header '" + fifo +
                              "' >/dev/null 2>&1; status=$?; wait; exit $status";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  EXPECT_TRUE(std::filesystem::is_fifo(fifo));
  auto bytes = test::read_file(copy);
  EXPECT_NE(std::string(bytes.begin(), bytes.end()).find("OfflineMemoryAllocation"), std::string::npos);
}

TEST(ExportCli, PreserveInputsKeepsThemIntactAndVerifies) {
  ScratchDir dir;
  const std::string name = "mobilenet_v1_0.25_128_int8";
  auto r = run_dmo({"export", name, "--preserve-inputs", "-o", dir.file("kept.tflite"), "--json"});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["preserve_inputs"].get<bool>());
  EXPECT_TRUE(j["overwritten_inputs"].empty()) << r.out;
  Graph graph = read_tflite_file(dir.file("kept.tflite"));
  EXPECT_TRUE(inputs_sharing_bytes(graph).empty());
  // The exported plan is what `verify` checks by default, and it holds.
  auto v = run_dmo({"verify", dir.file("kept.tflite")});
  EXPECT_EQ(v.exit_status, 0) << v.out << v.err;

  auto text = run_dmo({"export", name, "--preserve-inputs", "-o", dir.file("kept2.tflite")});
  EXPECT_NE(text.out.find("graph inputs: intact during and after Invoke"), std::string::npos) << text.out;
}

}  // namespace
}  // namespace dmo

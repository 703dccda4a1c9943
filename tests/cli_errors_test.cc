// Usage mistakes and refusals a new user meets: each is exit status 2 and
// exactly one line on stderr, "dmo: error: ..." naming the problem.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "dmo/tflite/graph_writer.h"
#include "dmo/trace/valgrind_runner.h"
#include "dmo/zoo/graph_builder.h"
#include "test_support.h"

namespace dmo {
namespace {

using test::run_dmo;

constexpr const char* kModel = "mobilenet_v1_0.25_96_int8";

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("dmo_errors_" + std::to_string(::getpid()) + "_" + name)).string();
}

// Exit 2, one stderr line "dmo: error: <message>", nothing on stdout.
void expect_refused(const test::CommandResult& r, const std::string& message) {
  EXPECT_EQ(r.exit_status, 2) << r.out << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.rfind("dmo: error: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(message), std::string::npos) << "wanted: " << message << "\ngot: " << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(CliErrors, AnUnknownOrMissingCommandListsTheCommands) {
  expect_refused(run_dmo({"bogus-cmd"}), "'bogus-cmd' is not a dmo command; commands: info, plan, run,");
  expect_refused(run_dmo({}), "give a command: info, plan, run,");
}

TEST(CliErrors, RunRepeatsAtLeastOneInference) {
  expect_refused(run_dmo({"run", kModel, "--repeat", "0"}), "--repeat must be at least 1, is 0");
  expect_refused(run_dmo({"run", kModel, "--repeat=-3"}), "--repeat must be at least 1, is -3");
  expect_refused(run_dmo({"run", kModel, "--repeat", "many"}), "run: Could not convert: --repeat = many");
}

TEST(CliErrors, ParseErrorsAreOneLineNamingTheCommandAndArgumentsInTheOrderGiven) {
  expect_refused(run_dmo({"plan", "--no-such", "--also-bad"}),
                 "plan: unexpected arguments: --no-such --also-bad (see dmo plan --help)");
  expect_refused(run_dmo({"plan", kModel, "second", "third"}), "plan: unexpected arguments: second third");
  expect_refused(run_dmo({"run"}), "run: model is required");
  expect_refused(run_dmo({"run", kModel, "--seed", "abc"}), "run: Could not convert: --seed = abc");
  expect_refused(run_dmo({"plan", "--alignment", "3"}), "plan: --alignment: 3 not in");
  // --help is not an error.
  auto help = run_dmo({"plan", "--help"});
  EXPECT_EQ(help.exit_status, 0);
  EXPECT_NE(help.out.find("--svg"), std::string::npos);
}

TEST(CliErrors, ConflictingOptionsAreRefusedNamingBothInTheOrderGiven) {
  expect_refused(run_dmo({"run", kModel, "--plan", "p.json", "--unshared"}),
                 "run: --plan and --unshared cannot be given together");
  expect_refused(run_dmo({"run", kModel, "--unshared", "--plan", "p.json"}),
                 "run: --unshared and --plan cannot be given together");
  expect_refused(run_dmo({"run", kModel, "--seed", "3", "--input", "in.bin"}),
                 "run: --seed and --input cannot be given together");
  expect_refused(run_dmo({"verify", kModel, "--input=in.bin", "--seed=2"}),
                 "verify: --input and --seed cannot be given together");
}

TEST(CliErrors, DumpTensorsIntoAFileAndAPlanThatIsADirectoryAreRefused) {
  const std::string file = temp_path("plain_file");
  std::ofstream(file) << "x";
  expect_refused(run_dmo({"run", kModel, "--dump-tensors", file}),
                 file + ": is a file, but --dump-tensors wants a directory");
  const std::string dir = temp_path("dir");
  std::filesystem::create_directories(dir);
  expect_refused(run_dmo({"run", kModel, "--plan", dir}), dir + ": is a directory, not a plan file");
  expect_refused(run_dmo({"run", kModel, "--output", dir}), dir + ": is a directory, not a file");
  std::filesystem::remove(file);
  std::filesystem::remove_all(dir);
}

TEST(CliErrors, PlanFilesWithUnknownFieldsOrAbsurdArenasAreRefusedNamingThem) {
  auto plan = nlohmann::json::parse(run_dmo({"plan", kModel, "--json", "--split", "none"}).out);
  nlohmann::json offsets = nlohmann::json::array();
  for (const auto& t : plan["tensors"]) offsets.push_back(t.contains("dmo_offset") ? t["dmo_offset"] : nlohmann::json(-1));
  const nlohmann::json good = {{"arena_bytes", plan["dmo_bytes"]}, {"offsets", offsets}};
  const std::string file = temp_path("plan.json");
  auto verify_with = [&](const nlohmann::json& placement) {
    std::ofstream(file) << placement.dump();
    return run_dmo({"verify", kModel, "--plan", file});
  };
  ASSERT_EQ(verify_with(good).exit_status, 0);
  nlohmann::json misspelt = good;
  misspelt["descending_op"] = nlohmann::json::array({1});
  expect_refused(verify_with(misspelt), file + ": unknown field 'descending_op'");
  nlohmann::json absurd = good;
  absurd["arena_bytes"] = int64_t{1} << 40;
  expect_refused(verify_with(absurd), file + ": arena_bytes 1099511627776 is above 2147483647");
  absurd["arena_bytes"] = -1;
  expect_refused(verify_with(absurd), file + ": arena_bytes -1 is outside 0..2147483647");
  expect_refused(verify_with(nlohmann::json::array({1, 2})), file + ": expected {\"arena_bytes\"");
  std::filesystem::remove(file);
}

TEST(CliErrors, AnOpWithoutAKernelIsRefusedNamingTheModelFile) {
  GraphBuilder b("one op without a kernel");
  const int32_t in = b.add_tensor("in", DataType::kFloat32, {1, 4});
  const int32_t out = b.add_tensor("out", DataType::kFloat32, {1, 4});
  // LSH_PROJECTION: TFLM has no kernel for it either.
  b.add_op(static_cast<OpKind>(15), {in}, {out});
  b.set_inputs({in});
  b.set_outputs({out});
  const std::vector<uint8_t> bytes = write_tflite(b.finish());
  const std::string file = temp_path("lsh_projection.tflite");
  std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                              static_cast<std::streamsize>(bytes.size()));
  for (const char* command : {"run", "verify"}) {
    expect_refused(run_dmo({command, file}), file + ": op 0 (LSH_PROJECTION): dmo has no kernel for this op");
    // Refused before planning starts: no planning progress precedes the line.
    expect_refused(run_dmo({command, file, "--progress"}),
                   file + ": op 0 (LSH_PROJECTION): dmo has no kernel for this op");
  }
  std::filesystem::remove(file);
}

TEST(CliErrors, TraceChecksTheLayerBeforeTracingAndRefusesProgramsThatMarkNone) {
  const std::string svg = temp_path("layer.svg");
  // Refused before valgrind runs: the harness's layers are known up front.
  expect_refused(run_dmo({"trace", "--model", kModel, "--op", "0", "--svg", svg, "--layer", "nope"}),
                 "trace: no layer named 'nope' among the ops traced; their layers are '" + std::string(kModel) +
                     " op 0 CONV_2D'");
  EXPECT_FALSE(std::filesystem::exists(svg));
  if (!valgrind_available()) GTEST_SKIP() << "valgrind is not installed: skipping the traced program";
  expect_refused(run_dmo({"trace", "--", "/bin/true"}), "trace: /bin/true marked no layer: nothing to report");
}

}  // namespace
}  // namespace dmo

// dmo codegen over every shared model dmo verify passes on: the host
// project builds with the system compiler and prints `dmo run --seed 1`'s
// outputs hash, or the model is refused in one line naming what the
// device path lacks (an op without a device kernel, more than one
// subgraph, a tensor neither planned nor constant).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "codegen_support.h"
#include "test_support.h"

namespace dmo {
namespace {

using namespace codegen_test;

std::vector<std::string> shared_model_names() {
  std::vector<std::string> names;
  if (const auto shared = test::shared_dir()) {
    for (const std::string& file : test::tflite_files_in(*shared + "/models")) {
      names.push_back(fs::path(file).stem().string());
    }
  }
  return names;
}

// What a refusal may say: the parts of the device path not built yet.
bool names_a_missing_device_path(const std::string& error) {
  for (const char* reason : {"no device kernel for dmo codegen", "dmo codegen runs models of one subgraph only",
                             "is neither constant nor in the arena"}) {
    if (error.find(reason) != std::string::npos) return true;
  }
  return false;
}

class CodegenSweep : public testing::TestWithParam<std::string> {};

TEST_P(CodegenSweep, HostProjectPrintsTheInterpretersHashOrIsRefusedInOneLine) {
  DMO_REQUIRE_SHARED(shared);
  const std::string model = shared + "/models/" + GetParam() + ".tflite";
  const test::CommandResult verify = test::run_dmo({"verify", model});
  if (verify.exit_status != 0) GTEST_SKIP() << "dmo verify does not pass on it: " << verify.err;
  ScratchDirectory scratch;
  const std::string dir = scratch / "project";
  const test::CommandResult generated = test::run_dmo({"codegen", model, "-o", dir, "--target", "host"});
  if (generated.exit_status != 0) {
    EXPECT_EQ(generated.exit_status, 2) << generated.err;
    EXPECT_EQ(std::count(generated.err.begin(), generated.err.end(), '\n'), 1) << generated.err;
    EXPECT_TRUE(names_a_missing_device_path(generated.err)) << generated.err;
    EXPECT_FALSE(fs::exists(dir));
    return;
  }
  const Shell run = shell("make -s -C " + dir + " run");
  ASSERT_EQ(run.status, 0) << run.out;
  EXPECT_EQ(run.out.find("warning:"), std::string::npos) << run.out;
  EXPECT_EQ(field(run.out, "outputs_fnv1a64"), interpreter_hash(model)) << run.out;
  EXPECT_EQ(std::stoll(field(run.out, "arena_bytes")), codegen_arena(generated.out)) << run.out;
}

std::string model_name(const testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  std::replace_if(name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(SharedModels, CodegenSweep, testing::ValuesIn(shared_model_names()), model_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CodegenSweep);

// How far the device path reaches: the shared models codegen writes a
// project for (each one's hash checked above).
TEST(CodegenSweepCoverage, WritesAProjectForMostSharedModels) {
  DMO_REQUIRE_SHARED(shared);
  int written = 0;
  const std::vector<std::string> names = shared_model_names();
  for (const std::string& name : names) {
    ScratchDirectory scratch;
    const test::CommandResult generated = test::run_dmo(
        {"codegen", shared + "/models/" + name + ".tflite", "-o", scratch / "project", "--target", "host"});
    if (generated.exit_status == 0) ++written;
  }
  std::cout << "codegen writes a project for " << written << " of " << names.size() << " shared models\n";
  EXPECT_GE(written, 34);
}

}  // namespace
}  // namespace dmo

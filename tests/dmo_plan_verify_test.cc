// Proof by execution of dmo's own plans: for every model the runtime can
// run, dmo's plan (both overlap methods) gives bit-identical outputs to an
// unshared run and the checking policy finds no clobber.
#include <gtest/gtest.h>

#include <cstdio>
#include <optional>
#include <string>

#include "dmo/error.h"
#include "dmo/report/plan_report.h"
#include "dmo/runtime/input_pattern.h"
#include "dmo/runtime/plan_verifier.h"
#include "dmo/tflite/reader.h"
#include "dmo/zoo/zoo.h"
#include "test_support.h"

namespace dmo {
namespace {

// Verifies dmo's plans of `graph`; the runtime's refusal when dmo cannot run
// some op (no kernel, or no kernel for its types), nullopt when it ran.
std::optional<std::string> verify_dmo_plans(const Graph& graph) {
  // Each method with its own input pattern: two runs cover both plans.
  for (auto [method, seed] : {std::pair{OverlapMethod::kAlgorithmic, 1u}, std::pair{OverlapMethod::kAnalytic, 2u}}) {
    PlanResult report = plan_model(graph, {.method = method});
    TensorPlacement placement = placement_from_plan(graph.main(), report.problem, report.dmo);
    VerifyResult result;
    try {
      result = verify_placement(graph, placement, pattern_input(graph.main(), seed));
    } catch (const Error& e) {
      const std::string what = e.what();
      if (test::missing_kernel(what) || what.find("not supported") != std::string::npos) return what;
      throw;
    }
    EXPECT_TRUE(result.ok()) << overlap_method_name(method) << " seed " << seed << ": " << result.describe(graph);
  }
  return std::nullopt;
}

TEST(DmoPlanVerify, EverySharedModelTheRuntimeSupports) {
  DMO_REQUIRE_SHARED(shared);
  int verified = 0;
  std::vector<std::string> unsupported_types;
  for (const std::string& file : test::tflite_files_in(shared + "/models")) {
    SCOPED_TRACE(file);
    const std::string model = test::file_stem(file);
    std::optional<std::string> refusal = verify_dmo_plans(read_tflite_file(file));
    if (!refusal) {
      ++verified;
    } else if (auto missing = test::missing_kernel(*refusal)) {
      std::printf("[ skipped  ] %s\n", test::describe_skip(model, *missing).c_str());
    } else {
      unsupported_types.push_back(model);
    }
  }
  EXPECT_EQ(verified, 31);
  // A float model with int8 weights (hybrid): dmo's conv has no such variant.
  EXPECT_EQ(unsupported_types, std::vector<std::string>{"tiny_kws_ref_model_float32"});
}

TEST(DmoPlanVerify, ZooModels) {
  for (const char* name : {"mobilenet_v1_0.25_128_int8", "mobilenet_v1_0.25_128_uint8",
                           "mobilenet_v1_0.25_96_float32", "mobilenet_v2_0.35_96_int8",
                           "mobilenet_v2_0.35_96_uint8", "mobilenet_v2_0.5_128_float32"}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(verify_dmo_plans(build_zoo_model(name)), std::nullopt);
  }
}

}  // namespace
}  // namespace dmo

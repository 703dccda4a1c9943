// Proof by execution of dmo's own plans: for every model the runtime can
// run, dmo's plan (both overlap methods) gives bit-identical outputs to an
// unshared run and the checking policy finds no clobber.
#include <gtest/gtest.h>

#include "dmo/error.h"
#include "dmo/report/plan_report.h"
#include "dmo/runtime/input_pattern.h"
#include "dmo/runtime/plan_verifier.h"
#include "dmo/tflite/reader.h"
#include "dmo/zoo/zoo.h"
#include "test_support.h"

namespace dmo {
namespace {

// Verifies dmo's plans of `graph`; false when dmo has no kernel for some op.
bool verify_dmo_plans(const Graph& graph) {
  // Each method with its own input pattern: two runs cover both plans.
  for (auto [method, seed] : {std::pair{OverlapMethod::kAlgorithmic, 1u}, std::pair{OverlapMethod::kAnalytic, 2u}}) {
    PlanReport report = make_plan_report(graph, {.method = method});
    TensorPlacement placement = placement_from_plan(graph.main(), report.problem, report.dmo);
    VerifyResult result;
    try {
      result = verify_placement(graph, placement, pattern_input(graph.main(), seed));
    } catch (const Error& e) {
      const std::string what = e.what();
      if (what.find("dmo has no kernel") != std::string::npos || what.find("not supported") != std::string::npos) {
        return false;
      }
      throw;
    }
    EXPECT_TRUE(result.ok()) << overlap_method_name(method) << " seed " << seed << ": " << result.describe(graph);
  }
  return true;
}

TEST(DmoPlanVerify, EverySharedModelTheRuntimeSupports) {
  DMO_REQUIRE_SHARED(shared);
  int verified = 0;
  std::vector<std::string> unsupported;
  for (const std::string& file : test::tflite_files_in(shared + "/models")) {
    SCOPED_TRACE(file);
    if (verify_dmo_plans(read_tflite_file(file))) {
      ++verified;
    } else {
      unsupported.push_back(test::file_stem(file));
    }
  }
  // WHILE, two custom NPU ops and a float model with int8 weights (hybrid).
  EXPECT_EQ(verified, 29);
  EXPECT_EQ(unsupported, (std::vector<std::string>{"litert_multi_subgraphs_while", "litert_with_metadata",
                                                   "tflm_person_detect_vela_int8", "tiny_kws_ref_model_float32"}));
}

TEST(DmoPlanVerify, ZooModels) {
  for (const char* name : {"mobilenet_v1_0.25_128_int8", "mobilenet_v1_0.25_128_uint8",
                           "mobilenet_v1_0.25_96_float32", "mobilenet_v2_0.35_96_int8",
                           "mobilenet_v2_0.35_96_uint8", "mobilenet_v2_0.5_128_float32"}) {
    SCOPED_TRACE(name);
    EXPECT_TRUE(verify_dmo_plans(build_zoo_model(name)));
  }
}

}  // namespace
}  // namespace dmo

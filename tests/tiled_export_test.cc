// Split stages exported for TFLM (pipeline/tiled_export.h): the file's
// offline plan, read back as TFLM reads it, runs clean and bit-identical
// under every kernel family, with the tiles' outputs planned on their own
// or in place at their rows of the stage's output (the concatenation then
// copies each block onto itself).
#include <gtest/gtest.h>

#include "dmo/pipeline/tiled_export.h"
#include "dmo/pipeline/verified_plan.h"
#include "dmo/runtime/input_pattern.h"
#include "dmo/transform/stage_tiling.h"
#include "dmo/zoo/zoo.h"

namespace dmo {
namespace {

PlanOptions export_options() {
  PlanOptions options;
  options.allow_descending = false;
  options.families = {KernelFamily::kTflmReference, KernelFamily::kCmsisNn, KernelFamily::kCmsisNnDsp};
  return options;
}

void expect_offline_plan_verifies(const TiledExport& t) {
  Graph file = t.graph;
  file.offline_plan = t.deployment.words;
  const PlanToVerify plan = offline_placement(file);
  EXPECT_EQ(plan.unplanned_tensors, 0);
  const std::vector<uint8_t> input = pattern_input(file.main(), 1);
  for (KernelFamily family : export_options().families) {
    const VerifyResult result = verify_plan(file, plan.placement, input, nullptr, family);
    EXPECT_TRUE(result.ok()) << kernel_family_name(family) << ": " << result.describe(file);
  }
}

TEST(TiledExport, TilesOnTheirOwnOrInPlaceVerifyUnderEveryFamily) {
  const Graph g = build_zoo_model("mobilenet_v1_0.25_128_int8");
  const std::vector<SplitStage> stages = {parse_split_spec("0-3:4"), parse_split_spec("4-6:3")};
  for (bool in_place : {false, true}) {
    const TiledExport t = tiled_export(g, stages, export_options(), in_place);
    EXPECT_EQ(t.tiles_in_place, in_place);
    ASSERT_EQ(t.deployment.plan, DeployedPlan::kDmo) << t.deployment.reason;
    expect_offline_plan_verifies(t);
  }
}

// In place, each tile's output sits at its rows of the stage's output.
TEST(TiledExport, InPlaceTilesSitAtTheirRowsOfTheStageOutput) {
  const Graph g = build_zoo_model("mobilenet_v1_0.25_128_int8");
  const TiledExport t = tiled_export(g, {parse_split_spec("0-3:4")}, export_options(), true);
  const Subgraph& sg = t.graph.main();
  int checked = 0;
  for (const Op& op : sg.ops) {
    if (!op.is(OpKind::kConcatenation)) continue;
    int64_t block = 0;
    const int32_t out = t.deployment.words.offsets[static_cast<size_t>(op.outputs[0])];
    for (int32_t in : op.inputs) {
      EXPECT_EQ(t.deployment.words.offsets[static_cast<size_t>(in)], out + block);
      block += sg.tensors[static_cast<size_t>(in)].byte_size;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 4);
}

}  // namespace
}  // namespace dmo

#include "dmo/plan/tflm_greedy_planner.h"

#include <gtest/gtest.h>

#include "dmo/plan/bounds.h"
#include "dmo/plan/plan_validator.h"
#include "dmo/report/plan_report.h"
#include "dmo/tflite/reader.h"
#include "test_support.h"

namespace dmo {
namespace {

MemoryProblem problem_of(std::vector<BufferRequest> buffers, int32_t ops) {
  MemoryProblem p;
  p.op_count = ops;
  p.buffers = std::move(buffers);
  return p;
}

TEST(TflmGreedyPlanner, ChainReusesMemory) {
  // a(0..1) -> b(1..2) -> c(2..3): a and c can share.
  MemoryProblem p = problem_of({{0, 100, {-1, 0}}, {1, 200, {0, 1}}, {2, 100, {1, 2}}, {3, 50, {2, 2}}}, 3);
  Plan plan = plan_tflm_greedy(p);
  EXPECT_TRUE(validate_plan(p, plan, 16).empty());
  // 200 placed first at 0; 112 (a) at 208; c (112) lives with b -> 208; d (64) with c only -> 0.
  EXPECT_EQ(plan.offsets[1], 0);
  EXPECT_EQ(plan.offsets[0], 208);
  EXPECT_EQ(plan.offsets[2], 208);
  EXPECT_EQ(plan.offsets[3], 0);
  EXPECT_EQ(plan.arena_size, 320);
}

TEST(TflmGreedyPlanner, RoundsSizesTo16) {
  MemoryProblem p = problem_of({{0, 1, {0, 0}}, {1, 17, {0, 0}}}, 1);
  Plan plan = plan_tflm_greedy(p);
  EXPECT_EQ(plan.offsets[1], 0);
  EXPECT_EQ(plan.offsets[0], 32);
  EXPECT_EQ(plan.arena_size, 48);
}

TEST(TflmGreedyPlanner, EqualSizesPlacedInReverseOrder) {
  // Three equal buffers live together: the last one added goes lowest.
  MemoryProblem p = problem_of({{0, 32, {0, 1}}, {1, 32, {0, 1}}, {2, 32, {0, 1}}}, 2);
  Plan plan = plan_tflm_greedy(p);
  EXPECT_EQ(plan.offsets[2], 0);
  EXPECT_EQ(plan.offsets[1], 32);
  EXPECT_EQ(plan.offsets[0], 64);
}

TEST(TflmGreedyPlanner, FillsFirstGapThatFits) {
  // a (64) at 0 and b (48) above it; c lives only with b, so it drops into
  // the gap a leaves below b.
  MemoryProblem p = problem_of({{0, 64, {0, 1}}, {1, 48, {0, 3}}, {2, 32, {2, 3}}, {3, 32, {1, 1}}}, 4);
  Plan plan = plan_tflm_greedy(p);
  EXPECT_EQ(plan.offsets[0], 0);
  EXPECT_EQ(plan.offsets[1], 64);
  EXPECT_EQ(plan.offsets[3], 112);  // equal sizes: 3 before 2; lives with a and b
  EXPECT_EQ(plan.offsets[2], 0);
  EXPECT_EQ(plan.arena_size, 144);
  EXPECT_TRUE(validate_plan(p, plan, 16).empty());
}

TEST(TflmGreedyPlanner, DisjointLifetimesShareOffsetZero) {
  MemoryProblem p = problem_of({{0, 64, {0, 0}}, {1, 64, {1, 1}}, {2, 64, {-2, -2}}}, 2);
  Plan plan = plan_tflm_greedy(p);
  EXPECT_EQ(plan.arena_size, 64);
}

TEST(Bounds, LiveBytesAndLowerBound) {
  MemoryProblem p = problem_of({{0, 100, {-1, 0}}, {1, 200, {0, 1}}, {2, 100, {1, 2}}, {3, 50, {2, 2}}}, 3);
  EXPECT_EQ(naive_bytes(p), 450);
  EXPECT_EQ(live_bytes_per_op(p), (std::vector<int64_t>{300, 300, 150}));
  EXPECT_EQ(lower_bound_bytes(p), 300);
}

TEST(PlanValidator, FindsCollisionsAndMisalignment) {
  MemoryProblem p = problem_of({{0, 64, {0, 1}}, {1, 64, {1, 2}}}, 3);
  Plan plan{"test", {0, 32}, 96, {}};
  auto errors = validate_plan(p, plan, 16);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("share 32 bytes"), std::string::npos);
  plan.offsets = {0, 72};
  plan.arena_size = 136;
  EXPECT_EQ(validate_plan(p, plan, 16).size(), 1u);  // misaligned
  EXPECT_TRUE(validate_plan(p, plan, 8).empty());
  plan.arena_size = 100;
  EXPECT_EQ(validate_plan(p, plan, 8).size(), 1u);  // arena too small
}

TEST(PlanValidator, AllowsDeclaredOverlapOnly) {
  MemoryProblem p = problem_of({{0, 64, {-1, 0}}, {1, 64, {0, 1}}}, 2);
  p.overlaps.push_back({0, 1, 0, 48});  // output 1 may run 48 bytes into input 0
  Plan plan{"test", {16, 0}, 80, {}};
  EXPECT_TRUE(validate_plan(p, plan, 16).empty());
  plan = Plan{"test", {0, 0}, 64, {}};  // 64 bytes shared: more than allowed
  EXPECT_EQ(validate_plan(p, plan, 16).size(), 1u);
  plan = Plan{"test", {0, 16}, 80, {}};  // output above its input: not the allowed direction
  EXPECT_EQ(validate_plan(p, plan, 16).size(), 1u);
}

TEST(PlanValidator, OutputAboveItsInputNeedsTheOpWalkingDescending) {
  MemoryProblem p = problem_of({{0, 64, {-1, 0}}, {1, 64, {0, 1}}}, 2);
  p.overlaps.push_back({0, 1, 0, 16, 32});  // ascending: 16 bytes; descending: 32 bytes
  Plan plan{"test", {0, 32}, 96, {0}};      // output 32 above: the input's end overlaps 32 bytes
  EXPECT_TRUE(validate_plan(p, plan, 16).empty());
  plan.descending_ops = {};  // the same layout for an ascending walk: clobbered
  EXPECT_EQ(validate_plan(p, plan, 16).size(), 1u);
  plan = Plan{"test", {0, 16}, 80, {0}};  // 48 bytes: more than the descending walk allows
  EXPECT_EQ(validate_plan(p, plan, 16).size(), 1u);
  plan = Plan{"test", {48, 0}, 112, {0}};  // output below: fine walking ascending, not descending
  EXPECT_EQ(validate_plan(p, plan, 16).size(), 1u);
  plan.descending_ops = {};
  EXPECT_TRUE(validate_plan(p, plan, 16).empty());
}

TEST(TflmGreedyPlanner, OfflineOffsetsFirstInBufferOrderThenTheRestAround) {
  // Buffers 1 and 2 have offline offsets (overlapping, as TFLM allows);
  // the others are planned around them, largest first.
  MemoryProblem p = problem_of({{0, 32, {0, 1}}, {1, 64, {0, 1}}, {2, 16, {0, 1}}, {3, 48, {0, 1}}}, 2);
  p.buffers[1].fixed_offset = 16;
  p.buffers[2].fixed_offset = 32;
  Plan plan = plan_tflm_greedy(p);
  EXPECT_EQ(plan.offsets[1], 16);
  EXPECT_EQ(plan.offsets[2], 32);
  EXPECT_EQ(plan.offsets[3], 80);  // no gap of 48 below 80
  EXPECT_EQ(plan.offsets[0], 128);  // the 16 bytes below 16 are too few
  EXPECT_EQ(plan.arena_size, 160);
  EXPECT_TRUE(validate_plan(p, plan, 16).empty());
}

// Vela's offline plan puts the NPU's scratch areas and the graph input and
// output all at offset 0 (the NPU's command stream reads the input and
// writes the output inside its scratch area), so TFLM's arena is the
// largest of them, not the sum. The ethos-u kernel's two scratch buffers
// (a uint64 base address and a size per input and output: 6 x 8 and 6 x 4
// bytes, rounded up to 48 and 32) go above them.
TEST(TflmGreedyPlanner, FollowsTheOfflinePlanOfTheVelaModel) {
  DMO_REQUIRE_SHARED(shared);
  Graph graph = read_tflite_file(shared + "/models/tflm_person_detect_vela_int8.tflite");
  PlanResult r = plan_model(graph);
  EXPECT_EQ(r.offline_planned_buffers, 4);
  ASSERT_EQ(r.scratch_buffers.size(), 2u);
  EXPECT_EQ(r.scratch_buffers[0].bytes, 48);
  EXPECT_EQ(r.scratch_buffers[1].bytes, 24);
  for (size_t b = 0; b < 4; ++b) EXPECT_EQ(r.tflm_greedy.offsets[b], 0);
  EXPECT_EQ(r.tflm_greedy.offsets[4], 74464);
  EXPECT_EQ(r.tflm_greedy.offsets[5], 74464 + 48);
  EXPECT_EQ(r.tflm_greedy.arena_size, 74544);
  EXPECT_TRUE(validate_plan(r.tflm_problem, r.tflm_greedy, kTflmBufferAlignment).empty());
  // Without the offline plan TFLM would need every tensor apart.
  MemoryProblem without_plan = r.tflm_problem;
  for (BufferRequest& b : without_plan.buffers) b.fixed_offset.reset();
  EXPECT_EQ(plan_tflm_greedy(without_plan).arena_size, 158240);
  EXPECT_FALSE(validate_plan(without_plan, r.tflm_greedy, kTflmBufferAlignment).empty());
  // dmo never moves the NPU's tensors: its plan keeps Vela's offsets.
  EXPECT_EQ(r.accelerator_fixed_buffers, 4);
  EXPECT_EQ(r.dmo.arena_size, 74544);
}

}  // namespace
}  // namespace dmo

// Per-buffer alignment, fixed offsets, aliases and several overlap pairs per
// op: every planner honours them and the validator catches each violation.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "dmo/error.h"
#include "dmo/plan/bounds.h"
#include "dmo/plan/dmo_planner.h"
#include "dmo/plan/plan_validator.h"
#include "dmo/plan/tflm_greedy_planner.h"

namespace dmo {
namespace {

BufferRequest buffer(int32_t id, int64_t size, int32_t first, int32_t last) { return {id, size, {first, last}}; }

// Runs both planners, checks each plan with the validator, returns them.
std::pair<Plan, Plan> plan_both(const MemoryProblem& p, int64_t alignment = 16) {
  Plan dmo = plan_dmo(p, {.alignment = alignment});
  Plan tflm = plan_tflm_greedy(p, alignment);
  EXPECT_TRUE(validate_plan(p, dmo, alignment).empty()) << validate_plan(p, dmo, alignment).front();
  EXPECT_TRUE(validate_plan(p, tflm, alignment).empty()) << validate_plan(p, tflm, alignment).front();
  return {dmo, tflm};
}

bool mentions(const std::vector<std::string>& errors, const std::string& text) {
  for (const std::string& e : errors) {
    if (e.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(ProblemConstraints, PerBufferAlignmentIsHonoured) {
  // 24 bytes live with a buffer that must start on a multiple of 64.
  MemoryProblem p;
  p.op_count = 1;
  p.buffers = {buffer(0, 24, 0, 0), buffer(1, 32, 0, 0)};
  p.buffers[1].alignment = 64;
  auto [dmo, tflm] = plan_both(p, 4);
  EXPECT_EQ(dmo.offsets[1] % 64, 0);
  EXPECT_EQ(tflm.offsets[1] % 64, 0);
  EXPECT_EQ(dmo.arena_size, 64);  // buffer 1 at 0, buffer 0 above it, counted as TFLM rounds it (32)
  // The validator requires it of a plan that ignores it.
  Plan bad = dmo;
  bad.offsets = {0, 24};
  bad.arena_size = 56;
  EXPECT_TRUE(mentions(validate_plan(p, bad, 4), "offset 24 is not a multiple of 64"));
}

TEST(ProblemConstraints, FixedOffsetsArePlacedFirstAndPlannedAround) {
  MemoryProblem p;
  p.op_count = 2;
  p.buffers = {buffer(0, 64, 0, 1), buffer(1, 32, 0, 0), buffer(2, 48, 1, 1)};
  p.buffers[0].fixed_offset = 32;
  auto [dmo, tflm] = plan_both(p);
  EXPECT_EQ(dmo.offsets[0], 32);
  EXPECT_EQ(tflm.offsets[0], 32);
  // Buffer 1 fits below it; buffer 2 (48 bytes) only above it.
  EXPECT_EQ(tflm.offsets[1], 0);
  EXPECT_EQ(tflm.offsets[2], 96);
  EXPECT_EQ(tflm.arena_size, 144);
  EXPECT_EQ(dmo.arena_size, 144);
  EXPECT_EQ(lower_bound_bytes(p), 112);  // 64 + 48 live at op 1; the fixed end is 96
  Plan moved = dmo;
  moved.offsets[0] = 48;
  EXPECT_TRUE(mentions(validate_plan(p, moved, 16), "not at its fixed offset 32"));
}

TEST(ProblemConstraints, TwoFixedBuffersMayShareBytes) {
  // TFLM takes offline offsets unchecked: the problem, not the plan, put
  // them together.
  MemoryProblem p;
  p.op_count = 1;
  p.buffers = {buffer(0, 64, 0, 0), buffer(1, 64, 0, 0), buffer(2, 16, 0, 0)};
  p.buffers[0].fixed_offset = 0;
  p.buffers[1].fixed_offset = 0;
  auto [dmo, tflm] = plan_both(p);
  EXPECT_EQ(tflm.offsets[2], 64);
  EXPECT_EQ(tflm.arena_size, 80);
  EXPECT_EQ(dmo.arena_size, 80);
  // The bounds count the bytes the fixed buffers cover, not their sum: a
  // bound above a valid plan would be wrong.
  EXPECT_EQ(live_bytes_per_op(p), std::vector<int64_t>{80});
  EXPECT_EQ(lower_bound_bytes(p), 80);
  EXPECT_EQ(lower_bound_with_overlap_bytes(p), 80);
  // A pair between fixed buffers forces nothing: they already sit where
  // their plan put them.
  p.overlaps = {{0, 1, 0, 8, 0}};  // op 0: buffer 1 over buffer 0 by 8 bytes
  EXPECT_LE(chain_lower_bound_with_overlap_bytes(p), dmo.arena_size);
}

TEST(ProblemConstraints, AliasedBuffersArePlacedWithTheirBase) {
  // Two producers write straight into the halves of a concatenation (buffer
  // 2, live from op 0 on), so they are views into it, not buffers of their own.
  MemoryProblem p;
  p.op_count = 3;
  p.buffers = {buffer(0, 64, 0, 2), buffer(1, 64, 1, 2), buffer(2, 128, 0, 2), buffer(3, 96, -1, 0)};
  p.aliases = {{0, 2, 0}, {1, 2, 64}};
  EXPECT_EQ(lower_bound_bytes(p), 224);  // op 0: the concatenation (its halves inside) and buffer 3
  auto [dmo, tflm] = plan_both(p);
  for (const Plan* plan : {&dmo, &tflm}) {
    EXPECT_EQ(plan->offsets[0], plan->offsets[2]);
    EXPECT_EQ(plan->offsets[1], plan->offsets[2] + 64);
    EXPECT_EQ(plan->arena_size, 224);
  }
  Plan bad = dmo;
  bad.offsets[1] += 16;
  EXPECT_TRUE(mentions(validate_plan(p, bad, 16), "not at its base tensor 2's offset plus 64"));
}

TEST(ProblemConstraints, AliasCyclesAreRefused) {
  MemoryProblem p;
  p.op_count = 1;
  p.buffers = {buffer(0, 16, 0, 0), buffer(1, 16, 0, 0)};
  p.aliases = {{0, 1, 0}, {1, 0, 0}};
  EXPECT_THROW(plan_dmo(p), Error);
  EXPECT_THROW(plan_tflm_greedy(p), Error);
  EXPECT_TRUE(mentions(validate_plan(p, Plan{"x", {0, 0}, 16, {}}, 16), "alias cycle"));
}

TEST(ProblemConstraints, SeveralOverlapPairsForOneOpAndOneOutput) {
  // ADD: both 256-byte inputs die at op 1, where the output may overlap
  // either by 256 bytes (an element-wise op reads each byte before writing it).
  MemoryProblem p;
  p.op_count = 2;
  p.buffers = {buffer(0, 256, -1, 1), buffer(1, 256, 0, 1), buffer(2, 256, 1, 1)};
  p.overlaps = {{1, 2, 0, 256, 0}, {1, 2, 1, 256, 0}};
  EXPECT_EQ(overlap_saving_per_op(p)[1], 256);  // one output: it overlaps one input at most
  EXPECT_EQ(lower_bound_with_overlap_bytes(p), 512);
  EXPECT_EQ(chain_lower_bound_with_overlap_bytes(p), 512);
  auto [dmo, tflm] = plan_both(p);
  EXPECT_EQ(dmo.arena_size, 512);
  EXPECT_EQ(tflm.arena_size, 768);
  // Either input may be the one the output overlaps.
  Plan over_second = dmo;
  over_second.offsets = {256, 0, 0};
  EXPECT_TRUE(validate_plan(p, over_second, 16).empty());
  Plan over_first = dmo;
  over_first.offsets = {0, 256, 0};
  EXPECT_TRUE(validate_plan(p, over_first, 16).empty());
  // But not more than the pair allows.
  p.overlaps[0].safe_overlap = 128;
  EXPECT_TRUE(mentions(validate_plan(p, over_first, 16), "share 256 bytes"));
}

TEST(ProblemConstraints, AnOpWithSeveralPairsWalksOneWay) {
  // The output may sit below input 0 (ascending) or above input 1
  // (descending), but its kernel walks one way: never both at once.
  MemoryProblem p;
  p.op_count = 1;
  p.buffers = {buffer(0, 256, -1, 0), buffer(1, 256, -1, 0), buffer(2, 256, 0, 0)};
  p.overlaps = {{0, 2, 0, 256, 0}, {0, 2, 1, 0, 256}};
  auto [dmo, tflm] = plan_both(p);
  EXPECT_EQ(dmo.arena_size, 512);
  // An output over the end of input 1 and the start of input 0 would need
  // both walks: refused walking either way.
  Plan both_ways{"x", {256, 0, 128}, 512, {}};
  EXPECT_TRUE(mentions(validate_plan(p, both_ways, 16), "share 128 bytes"));
  both_ways.descending_ops = {0};
  EXPECT_TRUE(mentions(validate_plan(p, both_ways, 16), "share 128 bytes"));
}

TEST(ProblemConstraints, SeveralOutputsOfOneOpEachOverlapTheInput) {
  // SPLIT: a 512-byte input into two 256-byte outputs, each allowed to
  // overlap the input's start by 256 bytes. The overlapped bytes of the
  // input all lie in its first 256, so the two pairs save 256 together.
  MemoryProblem p;
  p.op_count = 1;
  p.buffers = {buffer(0, 512, -1, 0), buffer(1, 256, 0, 0), buffer(2, 256, 0, 0)};
  p.overlaps = {{0, 1, 0, 256, 0}, {0, 2, 0, 256, 0}};
  EXPECT_EQ(overlap_saving_per_op(p)[0], 256);
  EXPECT_EQ(lower_bound_with_overlap_bytes(p), 768);
  Plan in_place{"x", {0, 0, 256}, 512, {}};
  EXPECT_TRUE(mentions(validate_plan(p, in_place, 16), "share 256 bytes"));
  auto [dmo, tflm] = plan_both(p);
  EXPECT_EQ(dmo.arena_size, 768);
  EXPECT_EQ(tflm.arena_size, 1024);
}

}  // namespace
}  // namespace dmo

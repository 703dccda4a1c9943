// The rolling packing (plan/rolling_packing.h): on random long problems
// every plan it returns is valid, at most its target and keeps the buffers
// it may not move; with one stretch holding every buffer it finds the
// optimum an exact packing of the whole problem finds, and nothing below
// it. On the synthetic recurrent graphs dmo's plan reaches the bound.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "dmo/pipeline/plan_pipeline.h"
#include "dmo/plan/bounds.h"
#include "dmo/plan/dmo_planner.h"
#include "dmo/plan/exact_packing.h"
#include "dmo/plan/overlap_placement.h"
#include "dmo/plan/plan_validator.h"
#include "dmo/plan/rolling_packing.h"
#include "dmo/zoo/zoo.h"

namespace dmo {
namespace {

// A chain-like graph: each op creates one buffer, most dying within a few
// ops and some living long, a few graph inputs, an overlap pair at most ops
// (some walking descending), and sometimes a buffer at a fixed offset.
MemoryProblem random_long_problem(std::mt19937& rng, int32_t ops) {
  auto draw = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  MemoryProblem problem;
  problem.op_count = ops;
  auto add = [&](int32_t first, int32_t last) {
    BufferRequest b;
    b.tensor = static_cast<int32_t>(problem.buffers.size());
    b.size = 16 * draw(1, 12);
    b.lifetime = {first, std::min(last, ops - 1)};
    problem.buffers.push_back(b);
  };
  for (int k = draw(0, 2); k > 0; --k) add(-1, draw(0, ops - 1));
  for (int32_t op = 0; op < ops; ++op) add(op, op + (draw(0, 5) == 0 ? draw(5, 25) : draw(1, 4)));
  if (draw(0, 2) == 0) {
    BufferRequest& b = problem.buffers[static_cast<size_t>(draw(0, static_cast<int>(problem.buffers.size()) - 1))];
    b.fixed_offset = 16 * draw(0, 8);
  }
  for (int32_t op = 0; op < ops; ++op) {
    std::vector<int32_t> outs, ins;
    for (size_t k = 0; k < problem.buffers.size(); ++k) {
      if (problem.buffers[k].lifetime.first == op) outs.push_back(static_cast<int32_t>(k));
      if (problem.buffers[k].lifetime.last == op) ins.push_back(static_cast<int32_t>(k));
    }
    if (outs.empty() || ins.empty() || draw(0, 3) == 0) continue;
    OverlapPair pair;
    pair.op = op;
    pair.output_buffer = outs.front();
    pair.input_buffer = ins[static_cast<size_t>(draw(0, static_cast<int>(ins.size()) - 1))];
    if (pair.output_buffer == pair.input_buffer) continue;
    const int64_t out_size = problem.buffers[static_cast<size_t>(pair.output_buffer)].size;
    const int64_t in_size = problem.buffers[static_cast<size_t>(pair.input_buffer)].size;
    pair.safe_overlap = 16 * draw(0, static_cast<int>(out_size / 16));
    pair.safe_overlap_descending = draw(0, 2) == 0 ? 16 * draw(0, static_cast<int>(in_size / 16)) : 0;
    problem.overlaps.push_back(pair);
  }
  return problem;
}

TEST(RollingPacking, ValidAtMostItsTargetAndExactInOneStretch) {
  std::mt19937 rng(20261203);
  int reached_in_stretches = 0, above_search = 0, with_fixed = 0, proven = 0;
  for (int round = 0; round < 150; ++round) {
    const MemoryProblem problem = random_long_problem(rng, std::uniform_int_distribution<int>(6, 14)(rng));
    DmoPlannerOptions planner;
    planner.repair_peak = false;
    planner.pack_rolling = false;
    const Plan plan = plan_dmo(problem, planner);
    ASSERT_TRUE(validate_plan(problem, plan, 16).empty()) << "round " << round;

    // The optimum with the plan's walks, the buffers it may not move staying.
    const std::vector<char> eligible = movable_buffers(problem, 16);
    std::vector<int32_t> movable;
    std::vector<PlacedBuffer> staying;
    for (size_t b = 0; b < problem.buffers.size(); ++b) {
      if (eligible[b]) {
        movable.push_back(static_cast<int32_t>(b));
      } else {
        staying.push_back({static_cast<int32_t>(b), plan.offsets[b]});
      }
    }
    with_fixed += !staying.empty();
    ExactPackingOptions exact;
    exact.node_budget = 2000000;
    int64_t nodes = 0;
    const auto optimum_offsets = exact_packing_around(problem, movable, staying, plan.descending_ops, exact, &nodes);
    ASSERT_TRUE(optimum_offsets.has_value()) << "round " << round;
    if (nodes > exact.node_budget) continue;  // not proven optimal
    ++proven;
    Plan optimum = plan;
    for (size_t k = 0; k < movable.size(); ++k) optimum.offsets[static_cast<size_t>(movable[k])] = (*optimum_offsets)[k];
    const int64_t best = rounded_arena_bytes(problem, optimum, 16);
    above_search += best < plan.arena_size;

    auto check = [&](const std::optional<Plan>& packed, int64_t target) {
      if (!packed) return;
      ASSERT_TRUE(validate_plan(problem, *packed, 16).empty()) << "round " << round;
      EXPECT_LE(packed->arena_size, target) << "round " << round;
      EXPECT_EQ(packed->arena_size, rounded_arena_bytes(problem, *packed, 16)) << "round " << round;
      for (const PlacedBuffer& s : staying) {
        EXPECT_EQ(packed->offsets[static_cast<size_t>(s.buffer)], s.offset) << "round " << round;
      }
    };
    // One stretch holding every buffer: the exact packing itself.
    RollingPackingOptions whole;
    whole.stretch = static_cast<int32_t>(problem.buffers.size());
    whole.node_budget = 2000000;
    whole.work_budget = int64_t{1} << 40;
    const std::optional<Plan> at_best = pack_rolling(problem, plan, best, whole);
    ASSERT_TRUE(at_best.has_value()) << "round " << round;
    check(at_best, best);
    EXPECT_FALSE(pack_rolling(problem, plan, best - 16, whole).has_value()) << "round " << round;

    // Stretches of 3 with 3 more looked ahead, undoing up to 8 before.
    RollingPackingOptions small;
    small.stretch = 3;
    small.lookahead = 3;
    const std::optional<Plan> rolled = pack_rolling(problem, plan, best, small);
    check(rolled, best);
    reached_in_stretches += rolled.has_value();
    EXPECT_FALSE(pack_rolling(problem, plan, best - 16, small).has_value()) << "round " << round;
  }

  EXPECT_GT(proven, 140);
  EXPECT_GT(above_search, 10);
  EXPECT_GT(with_fixed, 20);
  EXPECT_GT(reached_in_stretches, 120);
}

// ExactPackingOptions::good_enough: the search stops at the first packing
// at or below it, which is valid, and searches no more nodes than the
// search for the optimum.
TEST(ExactPacking, StopsAtAPackingGoodEnough) {
  std::mt19937 rng(20261206);
  int fewer = 0;
  for (int round = 0; round < 100; ++round) {
    const MemoryProblem problem = random_long_problem(rng, std::uniform_int_distribution<int>(6, 10)(rng));
    const std::vector<char> eligible = window_eligible_buffers(problem, 16);
    if (std::find(eligible.begin(), eligible.end(), 0) != eligible.end()) continue;
    std::vector<int32_t> all(problem.buffers.size());
    for (size_t b = 0; b < all.size(); ++b) all[b] = static_cast<int32_t>(b);
    ExactPackingOptions exact;
    exact.node_budget = 1000000;
    int64_t optimum_nodes = 0, enough_nodes = 0;
    const auto optimum = exact_packing_around(problem, all, {}, {}, exact, &optimum_nodes);
    if (!optimum || optimum_nodes > exact.node_budget) continue;
    int64_t sum = 0;
    for (const BufferRequest& b : problem.buffers) sum += b.size;
    exact.good_enough = sum;  // any packing
    const auto enough = exact_packing_around(problem, all, {}, {}, exact, &enough_nodes);
    ASSERT_TRUE(enough.has_value()) << "round " << round;
    Plan plan{"", *enough, 0, {}};
    plan.arena_size = rounded_arena_bytes(problem, plan, 16);
    plan.descending_ops = descending_ops(problem, plan);
    EXPECT_TRUE(validate_plan(problem, plan, 16).empty()) << "round " << round;
    EXPECT_LE(enough_nodes, optimum_nodes) << "round " << round;
    fewer += enough_nodes < optimum_nodes;
  }
  EXPECT_GT(fewer, 20);
}

// The search and the peak repair leave synthetic_rnn_1000 256 bytes above
// the bound and synthetic_rnn_5000 512: long-lived hidden states sit where
// they later split the arena at its peaks. Packed again stretch by stretch
// (undoing stretches where one does not pack), both reach it.
TEST(RollingPacking, ReachesTheBoundOnTheSyntheticRecurrentGraphs) {
  struct Expected {
    const char* model;
    int64_t before, bound;
  };
  for (const Expected& e : {Expected{"synthetic_rnn_1000", 9984, 9728}, Expected{"synthetic_rnn_5000", 10752, 10240}}) {
    const PlanResult r = plan_model(build_zoo_model(e.model));
    const int64_t bound = chain_lower_bound_with_overlap_bytes(r.problem);
    EXPECT_EQ(bound, e.bound) << e.model;
    DmoPlannerOptions without;
    without.pack_rolling = false;
    const Plan repaired = plan_dmo(r.problem, without);
    EXPECT_EQ(repaired.arena_size, e.before) << e.model;
    const std::optional<Plan> packed = pack_rolling(r.problem, repaired, bound);
    ASSERT_TRUE(packed.has_value()) << e.model;
    EXPECT_EQ(packed->arena_size, bound) << e.model;
    EXPECT_TRUE(validate_plan(r.problem, *packed, 16).empty()) << e.model;
    EXPECT_EQ(r.dmo.arena_size, bound) << e.model;

    // Neither packs without undoing stretches.
    RollingPackingOptions no_undo;
    no_undo.max_back = 0;
    EXPECT_FALSE(pack_rolling(r.problem, repaired, bound, no_undo).has_value()) << e.model;
  }
}

}  // namespace
}  // namespace dmo

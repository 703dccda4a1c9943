// The exact packing behind "lower_bound, exact on the peak window": on
// random small problems it equals a brute-force optimum (every offset on
// the lattice, every choice of walks, validity judged as the validator
// judges it), is never above a plan dmo makes, and never below the bounds
// it tightens.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <set>
#include <vector>

#include "dmo/pipeline/plan_pipeline.h"
#include "dmo/plan/bounds.h"
#include "dmo/plan/dmo_planner.h"
#include "dmo/plan/overlap_placement.h"
#include "dmo/plan/peak_repair.h"
#include "dmo/plan/plan_validator.h"
#include "dmo/plan/problem_file.h"
#include "dmo/plan/window_bound.h"
#include "dmo/zoo/zoo.h"

namespace dmo {
namespace {

struct Random {
  MemoryProblem problem;
  int64_t alignment = 1;
  int64_t end_rounding = 1;
};

// Up to 5 buffers over 4 ops, pairs on distinct ops (one pair per op, so
// every combination of walks is a choice of the brute force).
Random random_problem(std::mt19937& rng) {
  auto draw = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Random r;
  r.alignment = int64_t{1} << draw(0, 2);
  r.end_rounding = r.alignment << draw(0, 1);
  r.problem.op_count = 4;
  const int n = draw(2, 5);
  for (int b = 0; b < n; ++b) {
    BufferRequest buffer;
    buffer.tensor = b;
    buffer.size = draw(1, 12);
    buffer.lifetime.first = draw(-1, 3);
    buffer.lifetime.last = draw(std::max(buffer.lifetime.first, 0), 3);
    r.problem.buffers.push_back(buffer);
  }
  // As the pipeline makes them: an op's output (created there) over an
  // input dying there; at most one pair per op.
  for (int op = 0; op < r.problem.op_count; ++op) {
    std::vector<int> outs, ins;
    for (int k = 0; k < n; ++k) {
      if (r.problem.buffers[static_cast<size_t>(k)].lifetime.first == op) outs.push_back(k);
      if (r.problem.buffers[static_cast<size_t>(k)].lifetime.last == op) ins.push_back(k);
    }
    if (outs.empty() || ins.empty() || draw(0, 3) == 0) continue;
    const int out = outs[static_cast<size_t>(draw(0, static_cast<int>(outs.size()) - 1))];
    const int in = ins[static_cast<size_t>(draw(0, static_cast<int>(ins.size()) - 1))];
    if (out == in) continue;
    OverlapPair pair;
    pair.op = op;
    pair.output_buffer = out;
    pair.input_buffer = in;
    pair.safe_overlap = draw(0, static_cast<int>(r.problem.buffers[static_cast<size_t>(out)].size));
    pair.safe_overlap_descending = draw(0, 2) == 0 ? 0 : draw(0, static_cast<int>(r.problem.buffers[static_cast<size_t>(in)].size));
    r.problem.overlaps.push_back(pair);
  }
  return r;
}

// Whether offsets are valid with the ops in `descending` walking
// descending: the validator's rule for every two buffers live together.
bool valid(const MemoryProblem& problem, const std::vector<int64_t>& offsets, size_t placed,
           const std::set<int32_t>& descending) {
  const size_t b = placed - 1;
  for (size_t a = 0; a < b; ++a) {
    const BufferRequest& x = problem.buffers[a];
    const BufferRequest& y = problem.buffers[b];
    if (!x.lifetime.intersects(y.lifetime)) continue;
    const size_t low = offsets[a] <= offsets[b] ? a : b, high = low == a ? b : a;
    if (offsets[high] >= offsets[low] + problem.buffers[low].size) continue;
    auto allowed = [&](size_t out, size_t in) {
      for (const OverlapPair& pair : problem.overlaps) {
        if (static_cast<size_t>(pair.output_buffer) != out || static_cast<size_t>(pair.input_buffer) != in) continue;
        if (descending.count(pair.op)) {
          if (pair.safe_overlap_descending > 0 &&
              offsets[out] - offsets[in] >= problem.buffers[in].size - pair.safe_overlap_descending) {
            return true;
          }
        } else if (offsets[in] - offsets[out] >= problem.buffers[out].size - pair.safe_overlap) {
          return true;
        }
      }
      return false;
    };
    if (!allowed(low, high) && !allowed(high, low)) return false;
  }
  return true;
}

// The smallest max(offset + size rounded up) over every offset on the
// lattice below the sum of the rounded sizes and every set of descending ops.
int64_t brute_force(const Random& r) {
  const MemoryProblem& problem = r.problem;
  const size_t n = problem.buffers.size();
  int64_t limit = 0;
  for (const BufferRequest& b : problem.buffers) limit += align_up(b.size, r.alignment);
  int64_t best = INT64_MAX;
  std::vector<int64_t> offsets(n, 0);
  const int ops = problem.op_count;
  for (int mask = 0; mask < (1 << ops); ++mask) {
    std::set<int32_t> descending;
    for (int op = 0; op < ops; ++op) {
      if (mask & (1 << op)) descending.insert(op);
    }
    auto place = [&](auto&& self, size_t k, int64_t top) -> void {
      if (top >= best) return;
      if (k == n) {
        best = top;
        return;
      }
      for (int64_t x = 0; x < limit; x += r.alignment) {
        offsets[k] = x;
        if (valid(problem, offsets, k + 1, descending)) {
          self(self, k + 1, std::max(top, x + align_up(problem.buffers[k].size, r.end_rounding)));
        }
      }
    };
    place(place, 0, 0);
  }
  return best;
}

TEST(WindowBound, ExactPackingEqualsBruteForceOnRandomProblems) {
  std::mt19937 rng(20261203);
  int with_pairs = 0, above_peak = 0;
  for (int round = 0; round < 400; ++round) {
    const Random r = random_problem(rng);
    std::vector<int32_t> all(r.problem.buffers.size());
    std::iota(all.begin(), all.end(), 0);
    ExactPackingOptions options;
    options.alignment = r.alignment;
    options.end_rounding = r.end_rounding;
    options.node_budget = 1000000;
    const std::optional<int64_t> exact = exact_subset_arena_bytes(r.problem, all, options);
    ASSERT_TRUE(exact.has_value()) << "round " << round;
    const int64_t brute = brute_force(r);
    ASSERT_EQ(*exact, brute) << "round " << round << ": " << problem_json(r.problem);

    // Never above a plan dmo makes, never below the bounds it tightens.
    DmoPlannerOptions planner;
    planner.alignment = r.alignment;
    planner.end_rounding = r.end_rounding;
    const Plan plan = plan_dmo(r.problem, planner);
    ASSERT_TRUE(validate_plan(r.problem, plan, r.alignment).empty());
    EXPECT_LE(*exact, rounded_arena_bytes(r.problem, plan, r.end_rounding)) << "round " << round;
    EXPECT_GE(*exact, chain_lower_bound_with_overlap_bytes(r.problem)) << "round " << round;
    if (r.problem.overlaps.empty()) {
      EXPECT_GE(*exact, lower_bound_bytes(r.problem)) << "round " << round;
    }
    with_pairs += !r.problem.overlaps.empty();
    above_peak += *exact > lower_bound_bytes(r.problem);

    // A ceiling caps the answer and still proves it.
    options.ceiling = brute - 1;
    EXPECT_EQ(exact_subset_arena_bytes(r.problem, all, options), brute - 1);
  }
  // The draw covers both kinds, and fragmentation the peak bound misses.
  EXPECT_GT(with_pairs, 100);
  EXPECT_GT(above_peak, 20);
}

TEST(WindowBound, OutOfBudgetProvesNothing) {
  // Twelve buffers live one after another in pairs: too many orders for 50 nodes.
  MemoryProblem problem;
  problem.op_count = 12;
  for (int b = 0; b < 12; ++b) {
    BufferRequest buffer;
    buffer.tensor = b;
    buffer.size = 16 * (1 + b % 5);
    buffer.lifetime = {b / 2, b / 2 + 3};
    problem.buffers.push_back(buffer);
  }
  std::vector<int32_t> all(12);
  std::iota(all.begin(), all.end(), 0);
  ExactPackingOptions options;
  options.node_budget = 50;
  int64_t nodes = 0;
  EXPECT_FALSE(exact_subset_arena_bytes(problem, all, options, &nodes).has_value());
  EXPECT_GT(nodes, 50);
  options.node_budget = 1000000;
  EXPECT_TRUE(exact_subset_arena_bytes(problem, all, options).has_value());
}

// On the synthetic recurrent graphs every window around the peak packs into
// the peak's live bytes: the bound stays there, and dmo's plan reaches it
// (the 2,338-op graph by the peak repair, peak_repair.h; the 1,000-op
// graph by the rolling packing after it, rolling_packing.h).
TEST(WindowBound, SyntheticRecurrentGraphsPackAtTheirPeak) {
  struct Expected {
    const char* model;
    int64_t bound, dmo;
  };
  for (const Expected& e : {Expected{"synthetic_rnn_1000", 9728, 9728}, Expected{"synthetic_rnn_2338", 10240, 10240}}) {
    const PlanResult r = plan_model(build_zoo_model(e.model));
    EXPECT_EQ(r.lower_bound_window_bytes, e.bound) << e.model;
    EXPECT_EQ(r.lower_bound_window_bytes, r.lower_bound_bytes) << e.model;
    EXPECT_EQ(r.dmo.arena_size, e.dmo) << e.model;
  }
}

// Packing around buffers that stay, each op walking as a plan says: the
// smallest arena over every lattice offset of the others (brute force),
// and valid as the validator judges it.
TEST(ExactPackingAround, EqualsBruteForceWithBuffersThatStayAndFixedWalks) {
  std::mt19937 rng(20261204);
  int with_staying = 0, with_descending = 0;
  for (int round = 0; round < 300; ++round) {
    const Random r = random_problem(rng);
    const MemoryProblem& problem = r.problem;
    DmoPlannerOptions planner;
    planner.alignment = r.alignment;
    planner.end_rounding = r.end_rounding;
    planner.repair_peak = false;
    const Plan plan = plan_dmo(problem, planner);
    std::vector<int32_t> movable;
    std::vector<PlacedBuffer> staying;
    for (size_t b = 0; b < problem.buffers.size(); ++b) {
      if (std::uniform_int_distribution<int>(0, 2)(rng) == 0) {
        staying.push_back({static_cast<int32_t>(b), plan.offsets[b]});
      } else {
        movable.push_back(static_cast<int32_t>(b));
      }
    }
    if (movable.empty()) continue;
    with_staying += !staying.empty();
    with_descending += !plan.descending_ops.empty();
    const std::set<int32_t> descending(plan.descending_ops.begin(), plan.descending_ops.end());
    // Brute force over the movable buffers' offsets: the plan is one
    // packing, so an optimal one ends every buffer at or below its arena.
    const int64_t limit = rounded_arena_bytes(problem, plan, r.end_rounding);
    std::vector<int64_t> offsets = plan.offsets;
    int64_t best = INT64_MAX;
    auto all_valid = [&] {
      for (size_t k = 1; k <= offsets.size(); ++k) {
        if (!valid(problem, offsets, k, descending)) return false;
      }
      return true;
    };
    auto place = [&](auto&& self, size_t k) -> void {
      if (k == movable.size()) {
        if (all_valid()) best = std::min(best, rounded_arena_bytes(problem, Plan{"", offsets, 0, {}}, r.end_rounding));
        return;
      }
      const int64_t size = align_up(problem.buffers[static_cast<size_t>(movable[k])].size, r.end_rounding);
      for (int64_t x = 0; x + size <= limit; x += r.alignment) {
        offsets[static_cast<size_t>(movable[k])] = x;
        self(self, k + 1);
      }
    };
    place(place, 0);
    ExactPackingOptions options;
    options.alignment = r.alignment;
    options.end_rounding = r.end_rounding;
    options.node_budget = 1000000;
    const auto packed = exact_packing_around(problem, movable, staying, plan.descending_ops, options);
    ASSERT_TRUE(packed.has_value()) << "round " << round << ": " << problem_json(problem);
    Plan repacked = plan;
    for (size_t k = 0; k < movable.size(); ++k) repacked.offsets[static_cast<size_t>(movable[k])] = (*packed)[k];
    repacked.arena_size = rounded_arena_bytes(problem, repacked, r.end_rounding);
    ASSERT_EQ(repacked.arena_size, best) << "round " << round << ": " << problem_json(problem);
    repacked.descending_ops = descending_ops(problem, repacked);
    ASSERT_TRUE(validate_plan(problem, repacked, r.alignment).empty()) << "round " << round;
    for (const PlacedBuffer& s : staying) EXPECT_EQ(repacked.offsets[static_cast<size_t>(s.buffer)], s.offset);

    // A ceiling at the optimum leaves nothing below it.
    options.ceiling = best;
    EXPECT_FALSE(exact_packing_around(problem, movable, staying, plan.descending_ops, options).has_value());
  }
  EXPECT_GT(with_staying, 100);
  EXPECT_GT(with_descending, 10);
}

// The peak repair never makes a plan larger or invalid, and stops at the bound.
TEST(PeakRepair, ValidNeverLargerNeverBelowTheBound) {
  std::mt19937 rng(20261205);
  int lowered = 0;
  for (int round = 0; round < 400; ++round) {
    const Random r = random_problem(rng);
    DmoPlannerOptions planner;
    planner.alignment = r.alignment;
    planner.end_rounding = r.end_rounding;
    planner.repair_peak = false;
    planner.search_budget = 0;  // leave room to repair
    const Plan plan = plan_dmo(r.problem, planner);
    PeakRepairOptions repair;
    repair.alignment = r.alignment;
    repair.end_rounding = r.end_rounding;
    const int64_t bound = chain_lower_bound_with_overlap_bytes(r.problem);
    const Plan repaired = repair_peak(r.problem, plan, bound, repair);
    ASSERT_TRUE(validate_plan(r.problem, repaired, r.alignment).empty()) << "round " << round;
    EXPECT_EQ(repaired.arena_size, rounded_arena_bytes(r.problem, repaired, r.end_rounding));
    EXPECT_LE(repaired.arena_size, plan.arena_size);
    EXPECT_GE(repaired.arena_size, std::min(plan.arena_size, bound));
    lowered += repaired.arena_size < plan.arena_size;
  }
  EXPECT_GT(lowered, 5);
}

// On the 2,338-op recurrent graph the search alone stops one 512-byte
// vector above the bound; the repair moves the buffer at the top into a
// gap it packs around it.
TEST(PeakRepair, ReachesTheBoundOnTheSyntheticRecurrentGraph) {
  const PlanResult r = plan_model(build_zoo_model("synthetic_rnn_2338"));
  DmoPlannerOptions without;
  without.repair_peak = false;
  without.pack_rolling = false;
  const Plan searched = plan_dmo(r.problem, without);
  const Plan repaired = plan_dmo(r.problem);
  EXPECT_EQ(searched.arena_size, 10752);
  EXPECT_EQ(repaired.arena_size, 10240);
  EXPECT_EQ(repaired.arena_size, chain_lower_bound_with_overlap_bytes(r.problem));
  EXPECT_TRUE(validate_plan(r.problem, repaired, 16).empty());

  // The repair alone does it, within its work budget; with none it does nothing.
  const int64_t bound = chain_lower_bound_with_overlap_bytes(r.problem);
  EXPECT_EQ(repair_peak(r.problem, searched, bound).arena_size, 10240);
  PeakRepairOptions no_work;
  no_work.work_budget = 0;
  EXPECT_EQ(repair_peak(r.problem, searched, bound, no_work).offsets, searched.offsets);
}

}  // namespace
}  // namespace dmo

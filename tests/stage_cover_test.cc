// The stage cover search (pipeline/stage_cover.h) against brute force over
// every set of non-overlapping stages: the lowest bound within the budget,
// the least recompute there, the trade-off curve, and which peaks it asks for.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <set>
#include <vector>

#include "dmo/pipeline/stage_cover.h"

namespace dmo {
namespace {

int64_t rounded(int64_t v, int64_t granule) { return (std::max<int64_t>(v, 0) + granule - 1) / granule * granule; }

struct Problem {
  std::vector<int64_t> need;
  std::vector<CoverStage> stages;
  std::vector<int64_t> peak;
};

// Every set of non-overlapping stages: its bound (the largest rounded need
// outside its stages and rounded peak inside), extra MACs and size.
struct SetFigures {
  int64_t bound, extra, count;
  std::vector<size_t> stages;
};

std::vector<SetFigures> every_set(const Problem& p, int64_t granule) {
  std::vector<SetFigures> sets;
  const size_t n = p.stages.size();
  for (uint32_t mask = 0; mask < (1u << n); ++mask) {
    std::vector<int> covered(p.need.size(), 0);
    SetFigures f{0, 0, 0, {}};
    bool overlapping = false;
    for (size_t i = 0; i < n && !overlapping; ++i) {
      if (!(mask >> i & 1)) continue;
      for (int32_t op = p.stages[i].first_op; op <= p.stages[i].last_op; ++op) {
        overlapping |= covered[static_cast<size_t>(op)]++ > 0;
      }
      f.bound = std::max(f.bound, rounded(p.peak[i], granule));
      f.extra += p.stages[i].extra_macs;
      ++f.count;
      f.stages.push_back(i);
    }
    if (overlapping) continue;
    for (size_t op = 0; op < p.need.size(); ++op) {
      if (!covered[op]) f.bound = std::max(f.bound, rounded(p.need[op], granule));
    }
    sets.push_back(f);
  }
  return sets;
}

Problem random_problem(std::mt19937& rng) {
  Problem p;
  const int ops = std::uniform_int_distribution<int>(1, 7)(rng);
  for (int op = 0; op < ops; ++op) p.need.push_back(std::uniform_int_distribution<int64_t>(0, 400)(rng));
  const int stages = std::uniform_int_distribution<int>(0, 10)(rng);
  for (int s = 0; s < stages; ++s) {
    const int32_t first = std::uniform_int_distribution<int32_t>(0, ops - 1)(rng);
    const int32_t last = std::uniform_int_distribution<int32_t>(first, std::min(ops - 1, first + 3))(rng);
    // Some stages free, some sharing costs and peaks: ties matter.
    p.stages.push_back({first, last, std::uniform_int_distribution<int64_t>(0, 4)(rng) * 50});
    p.peak.push_back(std::uniform_int_distribution<int64_t>(0, 8)(rng) * 50 + (rng() % 2));
  }
  return p;
}

StagePeaks peaks_of(const Problem& p, std::vector<size_t>* asked = nullptr) {
  return [&p, asked](const std::vector<size_t>& stages) {
    std::vector<int64_t> found;
    for (size_t i : stages) {
      found.push_back(p.peak[i]);
      if (asked) asked->push_back(i);
    }
    return found;
  };
}

TEST(StageCover, LowestBoundAndLeastRecomputeEqualBruteForce) {
  std::mt19937 rng(12);
  for (int trial = 0; trial < 2000; ++trial) {
    const Problem p = random_problem(rng);
    const int64_t granule = trial % 3 == 0 ? 16 : 1;
    const int64_t budget = std::uniform_int_distribution<int64_t>(0, 400)(rng);
    const std::vector<SetFigures> sets = every_set(p, granule);
    int64_t best_bound = std::numeric_limits<int64_t>::max();
    for (const SetFigures& f : sets) {
      if (f.extra <= budget) best_bound = std::min(best_bound, f.bound);
    }
    std::pair<int64_t, int64_t> best_cost = {std::numeric_limits<int64_t>::max(), 0};
    for (const SetFigures& f : sets) {
      if (f.bound <= best_bound) best_cost = std::min(best_cost, {f.extra, f.count});
    }
    const StageCoverSearch found = search_stage_covers(p.need, p.stages, peaks_of(p), budget, granule, false);
    SCOPED_TRACE(testing::Message() << "trial " << trial);
    EXPECT_EQ(found.lowest.threshold, best_bound);
    EXPECT_EQ(found.lowest.extra_macs, best_cost.first);
    EXPECT_EQ(static_cast<int64_t>(found.lowest.stages.size()), best_cost.second);
    // The cover given is one of the sets, in op order, with the figures said.
    for (size_t i = 1; i < found.lowest.stages.size(); ++i) {
      EXPECT_LT(p.stages[found.lowest.stages[i - 1]].last_op, p.stages[found.lowest.stages[i]].first_op);
    }
    std::vector<size_t> cover = found.lowest.stages;
    std::sort(cover.begin(), cover.end());
    const auto same = std::find_if(sets.begin(), sets.end(), [&](const SetFigures& f) { return f.stages == cover; });
    ASSERT_NE(same, sets.end());
    EXPECT_LE(same->bound, found.lowest.threshold);
    EXPECT_EQ(same->extra, found.lowest.extra_macs);
    EXPECT_TRUE(found.curve.empty());
  }
}

// Floors only spare the search peaks: with any floors at most the peaks,
// up to the peaks themselves, it gives the same cover as without.
TEST(StageCover, FloorsChangeNothingButThePeaksAskedFor) {
  std::mt19937 rng(56);
  int64_t asked_without = 0, asked_with = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const Problem p = random_problem(rng);
    const int64_t granule = trial % 3 == 0 ? 16 : 1;
    const int64_t budget = std::uniform_int_distribution<int64_t>(0, 400)(rng);
    Problem floored = p;
    for (size_t i = 0; i < floored.stages.size(); ++i) {
      floored.stages[i].peak_floor =
          trial % 2 == 0 ? p.peak[i] : std::uniform_int_distribution<int64_t>(0, p.peak[i])(rng);
    }
    std::vector<size_t> without, with;
    const StageCoverSearch plain = search_stage_covers(p.need, p.stages, peaks_of(p, &without), budget, granule, false);
    const StageCoverSearch found =
        search_stage_covers(floored.need, floored.stages, peaks_of(floored, &with), budget, granule, false);
    SCOPED_TRACE(testing::Message() << "trial " << trial);
    EXPECT_EQ(found.lowest.threshold, plain.lowest.threshold);
    EXPECT_EQ(found.lowest.extra_macs, plain.lowest.extra_macs);
    EXPECT_EQ(found.lowest.stages, plain.lowest.stages);
    asked_without += static_cast<int64_t>(without.size());
    asked_with += static_cast<int64_t>(with.size());
  }
  EXPECT_LT(asked_with, asked_without);
}

TEST(StageCover, TheCurveGivesTheLowestBoundAtEachRecomputeItTakes) {
  std::mt19937 rng(34);
  for (int trial = 0; trial < 1000; ++trial) {
    const Problem p = random_problem(rng);
    const int64_t budget = std::uniform_int_distribution<int64_t>(0, 400)(rng);
    const std::vector<SetFigures> sets = every_set(p, 1);
    const StageCoverSearch found = search_stage_covers(p.need, p.stages, peaks_of(p), budget, 1, true);
    SCOPED_TRACE(testing::Message() << "trial " << trial);
    ASSERT_FALSE(found.curve.empty());
    EXPECT_EQ(found.curve.back().threshold, found.lowest.threshold);
    EXPECT_EQ(found.curve.back().extra_macs, found.lowest.extra_macs);
    // The lowest bound of any set recomputing at most a point's MACs is
    // that point's; the cheapest such set recomputes what it says.
    auto lowest_bound_within = [&](int64_t extra) {
      int64_t bound = std::numeric_limits<int64_t>::max();
      for (const SetFigures& f : sets) {
        if (f.extra <= extra) bound = std::min(bound, f.bound);
      }
      return bound;
    };
    for (size_t i = 0; i < found.curve.size(); ++i) {
      const StageCover& point = found.curve[i];
      EXPECT_LE(point.extra_macs, budget);
      EXPECT_EQ(point.threshold, lowest_bound_within(point.extra_macs));
      if (i > 0) {
        EXPECT_GT(point.extra_macs, found.curve[i - 1].extra_macs);
        EXPECT_LT(point.threshold, found.curve[i - 1].threshold);
        // Nothing cheaper reaches this bound.
        EXPECT_GT(lowest_bound_within(point.extra_macs - 1), point.threshold);
      }
    }
    // The cheapest point recomputes nothing (the empty set at least).
    EXPECT_EQ(found.curve.front().extra_macs, 0);
  }
}

TEST(StageCover, AsksOnlyForThePeaksOfStagesAtOpsAboveWhatIsReached) {
  // Op 2 needs far more than the others: only stages containing it can
  // lower the bound, and the others' peaks are never computed.
  Problem p;
  p.need = {100, 120, 900, 110, 100};
  p.stages = {{0, 1, 10}, {1, 2, 20}, {2, 3, 30}, {3, 4, 10}, {0, 0, 0}};
  p.peak = {90, 300, 250, 80, 50};
  std::vector<size_t> asked;
  const StageCoverSearch found = search_stage_covers(p.need, p.stages, peaks_of(p, &asked), 100, 1, false);
  EXPECT_EQ(found.lowest.threshold, 250);
  EXPECT_EQ(found.lowest.stages, std::vector<size_t>{2});
  EXPECT_EQ(std::set<size_t>(asked.begin(), asked.end()), (std::set<size_t>{1, 2}));
  // Each peak asked for once.
  EXPECT_EQ(asked.size(), 2u);
}

TEST(StageCover, NoStagesOrNoOpsGiveTheLargestNeed) {
  const StageCoverSearch none = search_stage_covers({5, 40, 7}, {}, peaks_of(Problem{}), 0, 16, true);
  EXPECT_EQ(none.lowest.threshold, 48);
  EXPECT_TRUE(none.lowest.stages.empty());
  ASSERT_EQ(none.curve.size(), 1u);
  const StageCoverSearch empty = search_stage_covers({}, {}, peaks_of(Problem{}), 0, 16, false);
  EXPECT_EQ(empty.lowest.threshold, 0);
}

}  // namespace
}  // namespace dmo

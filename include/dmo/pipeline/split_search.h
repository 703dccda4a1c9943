// `--split auto`: the split stages (transform/split_candidates.h) that make
// dmo's arena smallest, planned jointly with the other ops' overlaps and
// walks, under a recompute budget: the extra MACs of all stages together
// at most a percentage of the model's MACs.
//
// Bound first: every set of stages needs at least its bound at each step
// (the unsplit need at ops outside its stages, each stage's own peak
// inside, stage_peaks.h), so the lowest bound any set within the budget
// has, and the set recomputing least there, come from a shortest path
// over the op order (stage_cover.h) before any set is planned. That set
// is planned first: when its plan reaches the bound, no set is smaller and
// none as small recomputes less, and the search ends.
//
// Otherwise the greedy descent goes on from it: it finds the ops at the
// current plan's peak, tries the candidate stages containing one of them
// (replacing the stages they share ops with), and keeps the set lowering
// the arena while recomputing least, until none does. If that still ends
// above the bound, the descent also runs from the unsplit plan (height
// tiles only, keeping the smallest arena each round, then patches too) and
// the smallest arena planned is kept: the search never ends above where
// that descent alone would. A candidate is planned only when a lower bound
// of its arena (with overlaps, plan/bounds.h) is below the current arena
// and no set planned already, recomputing no more, has an arena at or
// below that bound. It never returns an arena above the unsplit plan's:
// with no candidate that helps it returns no stages.
//
// Cost: the unsplit safe overlaps once (the slow step); then the peaks of
// the candidate stages containing an op whose unsplit need is above the
// bound (each a schedule and problem of the model, on every core: 1,428 of
// coral MobileNet v2's 2,172 candidates), and O(ops + candidates) per
// threshold tried, one per distinct need above the bound plus a binary
// search among the peaks below; then dmo's planner for the sets planned:
// up to search_budget (4000) moves of n buffers each (5 sets on coral
// MobileNet v2); then plan_model of the set chosen, with its stages' loop
// nests. The greedy descents, when they run, plan up to hundreds of sets
// (293 on coral MobileNet v2 from the unsplit plan).
#pragma once

#include <cstdint>
#include <vector>

#include "dmo/model/graph.h"
#include "dmo/pipeline/plan_pipeline.h"
#include "dmo/schedule/split_stage.h"

namespace dmo {

// One set of stages the search planned.
struct SplitTradeoff {
  std::vector<SplitStage> stages;  // empty: the unsplit plan
  int64_t arena_bytes = 0;         // dmo's arena (PlanResult::dmo)
  int64_t extra_macs = 0;
};

struct SplitSearchResult {
  // plan_model's result with the stages found (the unsplit plan when none).
  PlanResult plan;
  std::vector<SplitStage> stages;
  int64_t unsplit_bytes = 0;
  double max_recompute_percent = 0;
  // The trade-off curve: the planned sets no other planned set beats on
  // both arena and extra MACs, extra MACs ascending (the unsplit plan
  // first), and the index of the one chosen (the smallest arena). Without
  // `trade_off_curve` only the few sets the search planned.
  std::vector<SplitTradeoff> pareto;
  bool trade_off_curve = false;  // `pareto` is the whole curve, not only the sets the search planned
  size_t chosen = 0;
  int32_t candidates = 0;          // stages within the budget
  int32_t candidates_planned = 0;  // stage sets planned in full
};

// Throws dmo::Error when `max_recompute_percent` is negative or not a
// number, or when `options` names kernels other than dmo's reference ones
// (split stages run those only). `options.split` is ignored.
// `trade_off_curve`: also run the descent from the unsplit plan (when the
// set at the lowest bound ended the search) and plan the cheapest set at
// each bound of the cover curve above the arena chosen, for `pareto`
// (costly: a plan each; the choice is the same without).
SplitSearchResult search_split_stages(const Graph& graph, const PlanOptions& options, double max_recompute_percent,
                                      bool trade_off_curve = false);

}  // namespace dmo

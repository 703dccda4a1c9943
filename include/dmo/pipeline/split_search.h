// `--split auto`: the split stages (transform/split_candidates.h) that make
// dmo's arena smallest, planned jointly with the other ops' overlaps and
// walks, under a recompute budget: the extra MACs of all stages together
// at most a percentage of the model's MACs.
//
// The search is greedy: it finds the ops at the current plan's peak, tries
// the candidate stages containing one of them (replacing the stages they
// share ops with), keeps the one giving the smallest arena, and repeats
// until no candidate lowers the arena. It does so with height tiles only,
// then goes on with patches (column tiles) too, keeping in each round the
// set that lowers the arena while recomputing least. A candidate is planned only when a
// lower bound of its arena (with overlaps, plan/bounds.h) is below the
// current arena and no set planned already, recomputing no more, has an
// arena at or below that bound: so every set that can lower the arena or
// join the trade-off curve is planned, and the slow step, each op's safe
// overlaps, is done once.
// It never returns an arena above the unsplit plan's: with no candidate
// that helps it returns no stages.
//
// Cost: the unsplit safe overlaps once; then R rounds (each lowers the
// arena, or keeps it with fewer ops at the peak), each taking O(ops) per
// candidate at the peak for the unsplit bound at the ops outside its
// stages and, inside them, each stage's peak with that stage alone (its
// schedule and problem built once per distinct stage over the search);
// for the sets that pass both a schedule, problem and chain bound, built
// once per set over the whole search (a set left unplanned is proposed
// again in later rounds: its bound is remembered, and its problem rebuilt
// only if it is then planned). Then dmo's planner for the
// sets planned, each of its plans (the set's own, ascending-only and
// stricter band problems) made at most once: up to search_budget (4000)
// moves of n buffers each, a move placing only the buffers from where it
// leaves the best order until it reaches the best arena, its walks kept
// per op with an overlap pair (a few dozen) rather than per step of the
// split schedule (thousands). Then plan_model of the set chosen, with its
// stages' loop nests. So O(R * C * ops) for C candidates, plus
// O(S * (steps + 4000 * n log n)) for the S distinct sets built or
// planned. On coral MobileNet v2 (2,172 candidates; 734 sets built, 1,229
// more left unbuilt by the stages' peaks; 293 planned, of 67 buffers) the
// planner is three quarters of the time.
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
  // first), and the index of the one chosen (the smallest arena).
  std::vector<SplitTradeoff> pareto;
  size_t chosen = 0;
  int32_t candidates = 0;          // stages within the budget
  int32_t candidates_planned = 0;  // stage sets planned in full
};

// Throws dmo::Error when `max_recompute_percent` is negative or not a
// number, or when `options` names kernels other than dmo's reference ones
// (split stages run those only). `options.split` is ignored.
SplitSearchResult search_split_stages(const Graph& graph, const PlanOptions& options, double max_recompute_percent);

}  // namespace dmo

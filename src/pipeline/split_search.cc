#include "dmo/pipeline/split_search.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>

#include "dmo/error.h"
#include "dmo/pipeline/plan_pipeline.h"
#include "dmo/pipeline/scheduled_problem.h"
#include "dmo/pipeline/stage_cover.h"
#include "dmo/pipeline/stage_peaks.h"
#include "dmo/plan/bounds.h"
#include "dmo/plan/dmo_plan_choice.h"
#include "dmo/plan/tflm_greedy_planner.h"
#include "dmo/transform/split_candidates.h"
#include "dmo/transform/split_macs.h"
#include "dmo/transform/split_schedule.h"
#include "dmo/transform/stage_tiling.h"

namespace dmo {

namespace {

bool shares_ops(const SplitStage& a, const SplitStage& b) {
  return a.first_op <= b.last_op && b.first_op <= a.last_op;
}

// A set of stages with the extra MACs of each (split_candidates' counts).
struct StageSet {
  std::vector<SplitCandidate> stages;  // op order
  int64_t extra_macs() const {
    int64_t total = 0;
    for (const SplitCandidate& c : stages) total += c.extra_macs;
    return total;
  }
  std::vector<SplitStage> split() const {
    std::vector<SplitStage> split;
    for (const SplitCandidate& c : stages) split.push_back(c.stage);
    return split;
  }
  // Identifies the set: planned sets are remembered by it.
  std::string key() const {
    std::string key;
    for (const SplitCandidate& c : stages) key += split_spec(c.stage) + " ";
    return key;
  }
};

// `current` with `candidate` in place of the stages it shares ops with.
StageSet with_stage(const StageSet& current, const SplitCandidate& candidate) {
  StageSet next;
  for (const SplitCandidate& c : current.stages) {
    if (!shares_ops(c.stage, candidate.stage)) next.stages.push_back(c);
  }
  next.stages.push_back(candidate);
  std::sort(next.stages.begin(), next.stages.end(),
            [](const SplitCandidate& a, const SplitCandidate& b) { return a.stage.first_op < b.stage.first_op; });
  return next;
}

// The ops whose steps run at the plan's peak: where the live bytes less the
// overlaps' saving are highest (no plan is below that there), and while a
// buffer reaching the top of dmo's arena is live. Only a stage containing
// one of them can lower the arena: one elsewhere leaves those steps' live
// tensors, and the tensors at the top, as they are.
// Times are steps of `schedule` (the search runs on models of one subgraph).
std::set<int32_t> peak_ops(const Schedule& schedule, const MemoryProblem& problem, const Plan& dmo) {
  std::set<int32_t> ops;
  auto add_time = [&](int32_t time) {
    if (time >= 0 && static_cast<size_t>(time) < schedule.steps.size()) {
      ops.insert(schedule.steps[static_cast<size_t>(time)].op);
    }
  };
  const std::vector<int64_t> need = live_profile(problem).less_saving();
  const int64_t highest = need.empty() ? 0 : std::max<int64_t>(0, *std::max_element(need.begin(), need.end()));
  for (size_t t = 0; t < need.size(); ++t) {
    if (need[t] == highest) add_time(static_cast<int32_t>(t));
  }
  for (size_t b = 0; b < problem.buffers.size(); ++b) {
    const BufferRequest& buffer = problem.buffers[b];
    const int64_t offset = dmo.offsets[b];
    if (offset < 0 || buffer.size == 0) continue;
    const int64_t end = offset + (buffer.size + kTflmBufferAlignment - 1) / kTflmBufferAlignment * kTflmBufferAlignment;
    if (end < dmo.arena_size) continue;
    for (int32_t t = std::max(buffer.lifetime.first, 0); t <= std::min(buffer.lifetime.last, problem.op_count - 1); ++t) {
      add_time(t);
    }
  }
  return ops;
}

// The largest of `per_op` (the unsplit problem's live bytes less the
// overlaps' saving, per op) at the ops outside every stage of `set`. Those
// ops run as one step each, in the same order, so the same tensors are
// live at them; the set's pairs live there are the unsplit problem's (a
// stage's own pair joins an input dying in it to an output made in it).
// So this is at most the set's own bound, and needs no problem built.
int64_t bound_outside_stages(const std::vector<int64_t>& per_op, const StageSet& set) {
  int64_t bound = 0;
  size_t op = 0;
  auto up_to = [&](size_t end) {
    for (; op < end && op < per_op.size(); ++op) bound = std::max(bound, per_op[op]);
  };
  for (const SplitCandidate& c : set.stages) {
    up_to(static_cast<size_t>(c.stage.first_op));
    op = std::max(op, static_cast<size_t>(c.stage.last_op) + 1);
  }
  up_to(per_op.size());
  return bound;
}

// The planned sets no other beats on both figures, extra MACs ascending.
std::vector<SplitTradeoff> pareto_front(std::vector<SplitTradeoff> planned) {
  std::stable_sort(planned.begin(), planned.end(), [](const SplitTradeoff& a, const SplitTradeoff& b) {
    return a.extra_macs != b.extra_macs ? a.extra_macs < b.extra_macs : a.arena_bytes < b.arena_bytes;
  });
  std::vector<SplitTradeoff> front;
  for (SplitTradeoff& t : planned) {
    if (front.empty() || t.arena_bytes < front.back().arena_bytes) front.push_back(std::move(t));
  }
  return front;
}

}  // namespace

SplitSearchResult search_split_stages(const Graph& graph, const PlanOptions& options, double max_recompute_percent,
                                      bool trade_off_curve) {
  if (!(max_recompute_percent >= 0) || !std::isfinite(max_recompute_percent)) {
    throw Error(fmt::format("--max-recompute {}: expected a percentage of at least 0", max_recompute_percent));
  }
  PlanOptions unsplit = options;
  unsplit.split.clear();
  for (KernelFamily family : options.families) {
    if (is_cmsis_nn(family)) {
      throw Error(fmt::format("{}: split stages run dmo's reference kernels; {} kernels compute whole outputs",
                              graph.source, kernel_family_name(family)));
    }
  }
  const std::vector<OpOverlap> overlaps = unsplit_safe_overlaps(graph, unsplit);
  SplitSearchResult result;
  result.max_recompute_percent = max_recompute_percent;
  result.trade_off_curve = trade_off_curve;
  const int64_t macs = model_macs(graph);
  auto within_budget = [&](int64_t extra) {
    return static_cast<double>(extra) <= max_recompute_percent / 100.0 * static_cast<double>(macs);
  };
  // Height tiles first, then patches: from the best height-only set the
  // search goes on with column tiles too, in small steps (of the sets that
  // lower the arena, the one recomputing least), because every column cut
  // adds recompute and the budget must last for the next peak. Offered all
  // at once, or taken largest saving first, patch sets can leave the search
  // where no single stage change lowers the arena, above what height tiles
  // alone reach (coral MobileNet v2: 282,240 and 174,704 bytes against
  // 162,336 this way).
  std::vector<SplitCandidate> height_only, candidates;
  for (const SplitCandidate& c : split_candidates(graph)) {
    if (!within_budget(c.extra_macs)) continue;
    candidates.push_back(c);
    if (c.stage.column_tiles == 1) height_only.push_back(c);
  }
  result.candidates = static_cast<int32_t>(candidates.size());
  if (candidates.empty()) {
    // Nothing to split (most models without convs): the unsplit plan, once.
    result.plan = plan_model(graph, unsplit, overlaps);
    result.unsplit_bytes = result.plan.dmo.arena_size;
    result.pareto = pareto_front({{{}, result.unsplit_bytes, 0}});
    result.chosen = 0;
    return result;
  }
  StageTilingMemo tilings(graph);
  // Candidates are planned as plan_model plans dmo's plan (its problem, then
  // choose_scheduled_plan), without the other figures; the one chosen in full.
  const Schedule unsplit_schedule = default_schedule(graph);
  const MemoryProblem unsplit_problem = planned_problem(graph, unsplit, unsplit_schedule, overlaps);
  // The search compares plans without the peak repair (much slower, and
  // its path would depend on it); the set it keeps is planned in full.
  const Plan unsplit_dmo = DmoPlanChooser(unsplit_problem, options.alignment).without_peak_repair().choice().dmo;
  result.unsplit_bytes = unsplit_dmo.arena_size;
  Schedule current_schedule = unsplit_schedule;
  MemoryProblem current_problem = unsplit_problem;
  Plan current_dmo = unsplit_dmo;
  // Per op of the unsplit problem, for bound_outside_stages: with fixed
  // offsets no bound is known, and a whole model's times are not its ops.
  std::vector<int64_t> unsplit_per_op;
  if (!has_fixed_offsets(unsplit_problem) && !plans_whole_model(graph)) {
    unsplit_per_op = live_profile(unsplit_problem).less_saving();
  }

  // Per stage, the most its steps need with that stage alone
  // (stage_peaks.h): with bound_outside_stages, a lower bound of the set's
  // per-op bound, hence of its chain bound, known without building the
  // set's schedule and problem.
  std::map<std::string, int64_t> stage_peak_of;
  auto stage_peak = [&](const SplitCandidate& c) {
    const std::string key = split_spec(c.stage);
    if (const auto known = stage_peak_of.find(key); known != stage_peak_of.end()) return known->second;
    const int64_t peak = stage_alone_peak(graph, unsplit, overlaps, c.stage, tilings);
    stage_peak_of.emplace(key, peak);
    return peak;
  };
  auto set_bound_unbuilt = [&](const StageSet& set) {
    int64_t bound = bound_outside_stages(unsplit_per_op, set);
    for (const SplitCandidate& c : set.stages) bound = std::max(bound, stage_peak(c));
    return bound;
  };

  // Every set planned, by key: its arena. The unsplit plan is the first.
  std::map<std::string, int64_t> arena_of;
  std::vector<std::pair<StageSet, int64_t>> planned = {{StageSet{}, result.unsplit_bytes}};
  arena_of[StageSet{}.key()] = result.unsplit_bytes;
  // A set's plan as the search compares them: dmo's plan alone first (a
  // third of the planning); a set that may win (at or below `to_beat`) is
  // planned as plan_model plans it, where an ascending-only plan can be
  // smaller still. The choice reuses the plans made for dmo's plan alone.
  auto plan_set = [&](const StageSet& set, const Schedule& schedule, const MemoryProblem& problem,
                      std::optional<int64_t> bound, int64_t to_beat) {
    DmoPlanChooser chooser = scheduled_plan_chooser(graph, problem, schedule, options.alignment, bound);
    chooser.without_peak_repair();
    Plan dmo = chooser.dmo_only();
    // An ascending-only plan can only be smaller when dmo's plan is above
    // the set's bound.
    if (dmo.arena_size <= to_beat && !(bound && dmo.arena_size <= *bound)) dmo = chooser.choice().dmo;
    ++result.candidates_planned;
    arena_of[set.key()] = dmo.arena_size;
    planned.emplace_back(set, dmo.arena_size);
    return dmo;
  };
  StageSet current;
  int64_t current_bytes = result.unsplit_bytes;
  // Every set whose bound was worked out, by key: its bound, and whether
  // one is known (not with fixed offsets). A set left unplanned in one
  // round is often proposed again in the next; its bound is the same.
  std::map<std::string, std::pair<int64_t, bool>> bound_of;
  auto descend = [&](const std::vector<SplitCandidate>& candidates, bool least_recompute) {
    for (;;) {
      const std::set<int32_t> peak = peak_ops(current_schedule, current_problem, current_dmo);
      // The sets one stage change away that touch the peak, within budget
      // and not planned before, least recompute first.
      std::vector<StageSet> proposals;
      std::set<std::string> seen;
      for (const SplitCandidate& c : candidates) {
        const bool at_peak = std::any_of(peak.begin(), peak.end(),
                                         [&](int32_t op) { return op >= c.stage.first_op && op <= c.stage.last_op; });
        if (!at_peak) continue;
        StageSet next = with_stage(current, c);
        if (!within_budget(next.extra_macs())) continue;
        const std::string key = next.key();
        if (arena_of.count(key) || !seen.insert(key).second) continue;
        // Most sets that give a stage back are dropped by this cheaper bound.
        if (!unsplit_per_op.empty() && bound_outside_stages(unsplit_per_op, next) > current_bytes) continue;
        proposals.push_back(std::move(next));
      }
      std::stable_sort(proposals.begin(), proposals.end(),
                       [](const StageSet& a, const StageSet& b) { return a.extra_macs() < b.extra_macs(); });
      struct Trial {
        StageSet set;
        int64_t bound = 0;  // 0 with fixed offsets: no bound known
        bool bound_known = false;
        // Built for the bound, or when the set is planned (the bound known
        // from an earlier round).
        std::optional<Schedule> schedule;
        std::optional<MemoryProblem> problem;
      };
      auto build_problem = [&](Trial& trial) {
        if (trial.problem) return;
        PlanOptions split = unsplit;
        split.split = trial.set.split();
        trial.schedule = split_schedule(graph, split.split, {}, &tilings);
        trial.problem = planned_problem(graph, split, *trial.schedule, overlaps, &tilings);
      };
      // A proposal's bound (its schedule and problem, the costly part of a
      // trial, built once per set), or nothing when that bound is above the
      // arena to beat.
      std::deque<Trial> trials;
      auto build = [&](StageSet set) -> Trial* {
        Trial trial;
        trial.set = std::move(set);
        const std::string key = trial.set.key();
        if (const auto known = bound_of.find(key); known != bound_of.end()) {
          std::tie(trial.bound, trial.bound_known) = known->second;
        } else {
          // Most sets above the arena to beat are known so without their
          // problem: their chain bound is above it too.
          if (!unsplit_per_op.empty() && set_bound_unbuilt(trial.set) > current_bytes) return nullptr;
          build_problem(trial);
          // A true bound, so a candidate above the arena to beat is never
          // planned; fixed offsets (accelerator ops) may share bytes unchecked.
          if (!has_fixed_offsets(*trial.problem)) {
            trial.bound = chain_lower_bound_with_overlap_bytes(*trial.problem);
            trial.bound_known = true;
          }
          bound_of[key] = {trial.bound, trial.bound_known};
        }
        if (trial.bound_known && trial.bound > current_bytes) return nullptr;
        trials.push_back(std::move(trial));
        return &trials.back();
      };
      // Ties on the arena go to the set with fewer ops at the peak: where two
      // places share the peak, lowering one is the step to lowering both.
      // Sets that may tie (bound equal to the arena) are planned only when
      // none of those that may beat it does.
      const Trial* best = nullptr;  // planned, so its problem is built
      Plan best_dmo;
      int64_t best_bytes = current_bytes;
      size_t best_peak_ops = peak.size();
      auto consider = [&](Trial& trial) {
        build_problem(trial);
        const std::optional<int64_t> bound =
            trial.bound_known ? std::optional<int64_t>(trial.bound) : std::nullopt;
        Plan dmo = plan_set(trial.set, *trial.schedule, *trial.problem, bound, best_bytes);
        const int64_t bytes = dmo.arena_size;
        if (bytes > best_bytes) return;
        const size_t at_peak = peak_ops(*trial.schedule, *trial.problem, dmo).size();
        if (bytes < best_bytes || at_peak < best_peak_ops) {
          best = &trial;
          best_bytes = bytes;
          best_peak_ops = at_peak;
          best_dmo = std::move(dmo);
        }
      };
      // Sets that may beat the arena. A set planned rules out every later
      // one that recomputes more and whose bound is no lower than its arena
      // (it could not be on the trade-off curve, nor beat that set's arena).
      auto try_to_beat = [&](Trial& trial) {
        if (trial.bound >= current_bytes) return;
        const int64_t extra = trial.set.extra_macs();
        const bool dominated = std::any_of(planned.begin(), planned.end(), [&](const auto& p) {
          return p.first.extra_macs() <= extra && p.second <= trial.bound;
        });
        if (!dominated) consider(trial);
      };
      if (least_recompute) {
        // The first set that lowers the arena; trials built as they come.
        for (StageSet& set : proposals) {
          if (Trial* trial = build(std::move(set))) try_to_beat(*trial);
          if (best) break;
        }
      } else {
        for (StageSet& set : proposals) build(std::move(set));
        std::stable_sort(trials.begin(), trials.end(), [](const Trial& a, const Trial& b) {
          const int64_t ea = a.set.extra_macs(), eb = b.set.extra_macs();
          return ea != eb ? ea < eb : a.bound < b.bound;
        });
        for (Trial& trial : trials) try_to_beat(trial);
      }
      if (best_bytes == current_bytes) {
        for (Trial& trial : trials) {
          if (trial.bound == current_bytes) consider(trial);
        }
      }
      if (!best) break;
      current = best->set;
      current_bytes = best_bytes;
      current_schedule = *best->schedule;
      current_problem = *best->problem;
      current_dmo = std::move(best_dmo);
    }
  };
  // The lowest bound any set within the budget has, and the set recomputing
  // least there (stage_cover.h), planned first: when its plan reaches that
  // bound no set can be smaller, and no set as small recomputes less. When
  // it does not, the descent goes on from it; and when that still ends
  // above the bound, the greedy descent from the unsplit plan runs too, so
  // the search never ends above where that alone would.
  std::optional<StageCover> lowest;
  std::vector<CoverStage> cover_stages;
  const auto max_extra = static_cast<int64_t>(std::floor(max_recompute_percent / 100.0 * static_cast<double>(macs)));
  const int64_t granule = std::max(options.alignment, kTflmBufferAlignment);
  // A cover's set, its schedule and problem built and planned.
  auto plan_cover = [&](const StageCover& cover, int64_t to_beat) {
    StageSet set;
    for (size_t i : cover.stages) set.stages.push_back(candidates[i]);
    PlanOptions split = unsplit;
    split.split = set.split();
    Schedule schedule = split_schedule(graph, split.split, {}, &tilings);
    MemoryProblem problem = planned_problem(graph, split, schedule, overlaps, &tilings);
    const int64_t bound = chain_lower_bound_with_overlap_bytes(problem);
    Plan dmo = plan_set(set, schedule, problem, bound, to_beat);
    return std::make_tuple(std::move(set), std::move(schedule), std::move(problem), std::move(dmo));
  };
  std::vector<StageCover> curve;
  if (!unsplit_per_op.empty()) {
    for (const SplitCandidate& c : candidates) {
      cover_stages.push_back({c.stage.first_op, c.stage.last_op, c.extra_macs,
                              stage_peak_floor(graph.main(), unsplit_problem, c.stage)});
    }
    // The peaks asked for, on every core, remembered for the descent.
    const StagePeaks peaks = [&](const std::vector<size_t>& asked) {
      std::vector<SplitStage> stages;
      for (size_t i : asked) stages.push_back(candidates[i].stage);
      std::vector<int64_t> found = stage_alone_peaks(graph, unsplit, overlaps, stages);
      for (size_t k = 0; k < asked.size(); ++k) stage_peak_of.emplace(split_spec(stages[k]), found[k]);
      return found;
    };
    StageCoverSearch covers = search_stage_covers(unsplit_per_op, cover_stages, peaks, max_extra, granule, trade_off_curve);
    lowest = std::move(covers.lowest);
    curve = std::move(covers.curve);
    if (!lowest->stages.empty()) {
      auto [set, schedule, problem, dmo] = plan_cover(*lowest, current_bytes);
      if (dmo.arena_size < current_bytes) {
        current = std::move(set);
        current_bytes = dmo.arena_size;
        current_schedule = std::move(schedule);
        current_problem = std::move(problem);
        current_dmo = std::move(dmo);
      }
    }
  }
  auto at_lowest = [&] { return lowest && current_bytes <= lowest->threshold; };
  if (lowest && !at_lowest() && !current.stages.empty()) descend(candidates, true);
  // Height tiles, then patches, from the unsplit plan.
  bool descended_from_unsplit = false;
  auto descend_from_unsplit = [&] {
    current = StageSet{};
    current_bytes = result.unsplit_bytes;
    current_schedule = unsplit_schedule;
    current_problem = unsplit_problem;
    current_dmo = unsplit_dmo;
    descend(height_only, false);
    descend(candidates, true);
    descended_from_unsplit = true;
  };
  if (!at_lowest()) descend_from_unsplit();
  // The smallest arena planned, and of those the least recompute.
  const auto chosen = std::min_element(planned.begin(), planned.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second < b.second : a.first.extra_macs() < b.first.extra_macs();
  });
  PlanOptions split = unsplit;
  split.split = chosen->first.split();
  result.stages = split.split;
  result.plan = plan_model(graph, split, overlaps);
  // The set kept is planned in full, with the peak repair the search
  // leaves out: its figures are that plan's (never larger).
  chosen->second = std::min(chosen->second, result.plan.dmo.arena_size);
  if (chosen->first.stages.empty()) result.unsplit_bytes = chosen->second;
  const int64_t chosen_bytes = chosen->second, chosen_extra = chosen->first.extra_macs();
  if (trade_off_curve && lowest) {
    // The sets the descent from the unsplit plan passes (each lowers the
    // arena for some more recompute), and the cheapest set at each bound
    // the cover curve passes, planned in full. Neither can beat the set
    // chosen, which is at the lowest bound (or the descent ran already): a
    // cover whose bound is at or below the arena chosen could, so those
    // are left out, and the choice never depends on what is reported.
    if (!descended_from_unsplit) descend_from_unsplit();
    for (const StageCover& cover : curve) {
      if (cover.threshold <= chosen_bytes || cover.stages.empty()) continue;
      StageSet set;
      for (size_t i : cover.stages) set.stages.push_back(candidates[i]);
      if (arena_of.count(set.key())) continue;
      plan_cover(cover, std::numeric_limits<int64_t>::max());
    }
  }
  // The set chosen first: of sets equal on both figures the front keeps it.
  std::vector<SplitTradeoff> tradeoffs = {{result.stages, chosen_bytes, chosen_extra}};
  for (const auto& [set, bytes] : planned) tradeoffs.push_back({set.split(), bytes, set.extra_macs()});
  result.pareto = pareto_front(std::move(tradeoffs));
  for (size_t i = 0; i < result.pareto.size(); ++i) {
    const SplitTradeoff& t = result.pareto[i];
    if (t.arena_bytes == chosen_bytes && t.extra_macs == chosen_extra) result.chosen = i;
  }
  return result;
}

}  // namespace dmo

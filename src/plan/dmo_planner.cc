#include "dmo/plan/dmo_planner.h"

#include <algorithm>
#include <numeric>
#include <optional>

#include "dmo/plan/bounds.h"
#include "dmo/plan/overlap_placement.h"
#include "dmo/plan/peak_repair.h"
#include "dmo/plan/rolling_packing.h"

namespace dmo {

namespace {

// Largest-first order (ties by earlier first use): the other classic start.
std::vector<int32_t> size_order(const MemoryProblem& problem) {
  std::vector<int32_t> order(problem.buffers.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    return problem.buffers[static_cast<size_t>(a)].size > problem.buffers[static_cast<size_t>(b)].size;
  });
  return order;
}

// Tensors of the tightest ops first: each buffer keyed by the largest
// "live bytes less the op's safe overlap" over the ops it is live at, so the
// peak op's output and input are placed before anything can crowd them;
// at equal keys later-created buffers (an op's output) before earlier ones
// (its input), so the input is placed over the output's end.
std::vector<int32_t> pressure_order(const MemoryProblem& problem, const LiveProfile& profile) {
  const std::vector<int64_t> pressure = profile.less_saving();
  std::vector<int64_t> key(problem.buffers.size(), 0);
  for (size_t b = 0; b < problem.buffers.size(); ++b) {
    const Lifetime& life = problem.buffers[b].lifetime;
    for (int32_t op = std::max(life.first, 0); op <= life.last && op < problem.op_count; ++op) {
      key[b] = std::max(key[b], pressure[static_cast<size_t>(op)]);
    }
  }
  std::vector<int32_t> order(problem.buffers.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    if (key[static_cast<size_t>(a)] != key[static_cast<size_t>(b)]) {
      return key[static_cast<size_t>(a)] > key[static_cast<size_t>(b)];
    }
    const BufferRequest& ba = problem.buffers[static_cast<size_t>(a)];
    const BufferRequest& bb = problem.buffers[static_cast<size_t>(b)];
    if (ba.lifetime.first != bb.lifetime.first) return ba.lifetime.first > bb.lifetime.first;
    return ba.size > bb.size;
  });
  return order;
}

}  // namespace

Plan plan_dmo(const MemoryProblem& problem, const DmoPlannerOptions& options) {
  OverlapPlacer placer(problem, options.alignment, options.use_overlaps, options.end_rounding);
  // Every counted end is a multiple of the smaller of the alignment and the
  // rounding, so no arena is below the bound rounded up to that.
  const int64_t granule = std::max<int64_t>(std::min(options.alignment, options.end_rounding), 1);
  const LiveProfile profile = live_profile(problem);
  const int64_t bound = align_up(options.use_overlaps ? chain_lower_bound_with_overlap_bytes(problem, profile)
                                                      : lower_bound_bytes(problem, profile.live),
                                 granule);

  std::vector<int32_t> best_order = placer.reverse_order();
  Plan best = placer.place(best_order);
  for (const std::vector<int32_t>& start : {pressure_order(problem, profile), size_order(problem)}) {
    if (best.arena_size <= bound) break;
    Plan plan = placer.place(start);
    if (plan.arena_size < best.arena_size) {
      best = std::move(plan);
      best_order = start;
    }
  }

  // Hill climb: move one buffer to the front of the order or just after
  // another buffer; keep the move when the arena shrinks. Buffers that end at
  // the arena's top are tried first, then all others.
  int32_t budget = options.search_budget;
  auto in_budget = [&] { return budget > 0 && placer.work() < options.work_budget; };
  const auto n = static_cast<int32_t>(best_order.size());
  bool improved = true;
  while (improved && in_budget() && best.arena_size > bound) {
    improved = false;
    std::vector<int32_t> movers, others;
    for (int32_t pos = 0; pos < n; ++pos) {
      int32_t b = best_order[static_cast<size_t>(pos)];
      const int64_t end = best.offsets[static_cast<size_t>(b)] +
                          align_up(problem.buffers[static_cast<size_t>(b)].size, std::max<int64_t>(options.end_rounding, 1));
      (end == best.arena_size ? movers : others).push_back(pos);
    }
    std::reverse(movers.begin(), movers.end());  // the last of them first
    movers.insert(movers.end(), others.begin(), others.end());
    // The best order's placement after each of its first k buffers: a move
    // that has placed the same buffers at the same offsets with the same
    // walks goes on as the best order did, to the same arena.
    const OverlapPlacer::Track best_track = placer.track(best_order);
    for (int32_t from : movers) {
      // The order with `from` moved to `to` starts as the best order does:
      // its first `to` buffers (to < from), or its first to + 1 but `from`
      // (to > from), grown in `skipping` as `to` passes them.
      OverlapPlacer::Partial skipping;
      bool skipping_built = false;
      OverlapPlacer::Partial trial;
      const int32_t moved = best_order[static_cast<size_t>(from)];
      for (int32_t to = 0; to < n && in_budget() && !improved; ++to) {
        if (to == from) continue;
        if (to > from && !skipping_built) {
          placer.prefix(best_track, from, skipping);
          skipping_built = true;
        }
        // (Past the best arena, `skipping` need not grow: no later move can win.)
        if (to > from && skipping.top < best.arena_size) placer.add(skipping, best_order[static_cast<size_t>(to)]);
        --budget;
        // A placement reaching the best arena cannot beat it: stop there.
        if ((to < from ? best_track.top[static_cast<size_t>(to)] : skipping.top) >= best.arena_size) continue;
        if (to < from) {
          placer.prefix(best_track, to, trial);
        } else {
          trial = skipping;
        }
        placer.add(trial, moved);
        // The rest follows the best order's track but where the moved
        // buffer reaches (and, past it, where those placed otherwise reach).
        if (to < from) {
          placer.follow(best_track, best_order, to, trial, best.arena_size, from);
        } else if (trial.top < best.arena_size) {
          // Placed the buffers the best order had by then (its first to + 1):
          // back on its track, or differing in a few buffers.
          if (OverlapPlacer::same_as_prefix(trial, best_track, to + 1)) continue;
          placer.follow(best_track, best_order, to + 1, trial, best.arena_size);
        }
        if (trial.top >= best.arena_size) continue;
        best = placer.finish(std::move(trial));
        const auto begin = best_order.begin();
        if (to < from) {
          std::rotate(begin + to, begin + from, begin + from + 1);
        } else {
          std::rotate(begin + from, begin + from + 1, begin + to + 1);
        }
        improved = true;
      }
      if (improved || !in_budget()) break;
    }
  }

  // Creation order, highest fit under a budget: search the smallest budget
  // between the bound and the best arena so far that every buffer fits in.
  if (best.arena_size > bound) {
    const std::vector<int32_t> order = placer.creation_order();
    int64_t low = bound - 1, high = best.arena_size;  // low fails (or is below the bound), high is met
    std::optional<Plan> found;
    if (auto at_bound = placer.place_highest(order, align_up(bound, options.alignment))) {
      found = std::move(at_bound);
      high = found->arena_size;
    }
    while (!found || high - low > options.alignment) {
      int64_t mid = low + (high - low) / 2;
      if (!found && mid <= low) break;
      if (auto plan = placer.place_highest(order, mid)) {
        high = std::min(mid, plan->arena_size);
        found = std::move(plan);
      } else {
        low = mid;
      }
      if (high - low <= options.alignment) break;
    }
    if (found && found->arena_size < best.arena_size) best = std::move(*found);
  }

  // The repair and the rolling packing re-pack exactly: without the pairs
  // this plan may not use, copied once for both.
  const bool exact_after = (options.repair_peak || options.pack_rolling) && best.arena_size > bound;
  std::optional<MemoryProblem> without_overlaps;
  if (exact_after && !options.use_overlaps && !problem.overlaps.empty()) {
    without_overlaps = problem;
    without_overlaps->overlaps.clear();
  }
  const MemoryProblem& packed_problem = without_overlaps ? *without_overlaps : problem;

  if (options.repair_peak && best.arena_size > bound) {
    PeakRepairOptions repair;
    repair.alignment = options.alignment;
    repair.end_rounding = options.end_rounding;
    best = repair_peak(packed_problem, std::move(best), bound, repair);
  }

  // Still above the bound: pack the whole graph again, stretch by stretch,
  // at the bound.
  if (options.pack_rolling && best.arena_size > bound) {
    RollingPackingOptions rolling;
    rolling.alignment = options.alignment;
    rolling.end_rounding = options.end_rounding;
    std::optional<Plan> packed = pack_rolling(packed_problem, best, bound, rolling);
    if (packed && packed->arena_size < best.arena_size) best = std::move(*packed);
  }

  best.planner = options.use_overlaps ? "dmo" : "dmo_no_overlap";
  return best;
}

}  // namespace dmo

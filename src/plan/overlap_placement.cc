#include "dmo/plan/overlap_placement.h"

#include <algorithm>
#include <limits>
#include <numeric>

#include "dmo/plan/live_together.h"

namespace dmo {

OverlapPlacer::OverlapPlacer(const MemoryProblem& problem, int64_t alignment, bool use_overlaps, int64_t end_rounding)
    : problem_(problem), alignment_(alignment), end_rounding_(std::max<int64_t>(end_rounding, 1)), groups_(problem) {
  const size_t n = problem.buffers.size();
  overlaps_of_.resize(n);
  pairs_of_.resize(n);
  if (use_overlaps) {
    // Walks numbered by op: a placement's walks come out as an op-indexed
    // vector would hold them.
    std::vector<int32_t> ops;
    for (const OverlapPair& pair : problem.overlaps) ops.push_back(pair.op);
    std::sort(ops.begin(), ops.end());
    ops.erase(std::unique(ops.begin(), ops.end()), ops.end());
    walk_count_ = static_cast<int32_t>(ops.size());
    walk_of_pair_.reserve(problem.overlaps.size());
    for (size_t p = 0; p < problem.overlaps.size(); ++p) {
      const OverlapPair& pair = problem.overlaps[p];
      const auto walk = static_cast<int32_t>(std::lower_bound(ops.begin(), ops.end(), pair.op) - ops.begin());
      walk_of_pair_.push_back(walk);
      pairs_of_walk_.resize(ops.size());
      pairs_of_walk_[static_cast<size_t>(walk)].push_back(static_cast<int32_t>(p));
      overlaps_of_[static_cast<size_t>(pair.output_buffer)].push_back(
          {pair.input_buffer, walk, pair.safe_overlap, pair.safe_overlap_descending});
      pairs_of_[static_cast<size_t>(pair.output_buffer)].push_back(static_cast<int32_t>(p));
      pairs_of_[static_cast<size_t>(pair.input_buffer)].push_back(static_cast<int32_t>(p));
    }
  }
  auto paired = [&](int32_t a, int32_t b) {
    auto joins = [&](int32_t output, int32_t input) {
      const std::vector<Allowance>& allowances = overlaps_of_[static_cast<size_t>(output)];
      return std::any_of(allowances.begin(), allowances.end(), [&](const Allowance& x) { return x.input == input; });
    };
    return joins(a, b) || joins(b, a);
  };
  conflicts_.resize(n);
  const std::vector<std::vector<int32_t>> together = buffers_live_together(problem);
  for (size_t a = 0; a < n; ++a) {
    for (int32_t b : together[a]) {
      // An alias group's members sit where the problem says, relative to each other.
      if (groups_.same_group(static_cast<int32_t>(a), b)) continue;
      conflicts_[a].push_back({b, paired(static_cast<int32_t>(a), b)});
    }
  }
  // Placements ask these for every group many times over.
  root_alignment_.resize(n);
  lowest_root_offset_.resize(n);
  for (size_t r = 0; r < n; ++r) {
    const auto root = static_cast<int32_t>(r);
    if (!groups_.is_root(root)) continue;
    root_alignment_[r] = groups_.alignment(root, alignment_);
    lowest_root_offset_[r] = groups_.lowest_root_offset(root);
  }
}

OverlapPlacer::Reach OverlapPlacer::reach(int32_t x, int32_t t, const std::vector<Walk>& walks) const {
  // X the output and T its input: an ascending walk puts X below T, a
  // descending one above; X the input, the other way round.
  Reach r;
  auto may = [&](int32_t w, Walk walk) {
    const Walk decided = walks[static_cast<size_t>(w)];
    return decided == Walk::kUndecided || decided == walk;
  };
  for (const Allowance& a : overlaps_of_[static_cast<size_t>(x)]) {
    if (a.input != t) continue;
    if (may(a.walk, Walk::kAscending)) r.below = std::max(r.below, a.ascending);
    if (may(a.walk, Walk::kDescending)) r.above = std::max(r.above, a.descending);
  }
  for (const Allowance& a : overlaps_of_[static_cast<size_t>(t)]) {
    if (a.input != x) continue;
    if (may(a.walk, Walk::kDescending)) r.below = std::max(r.below, a.descending);
    if (may(a.walk, Walk::kAscending)) r.above = std::max(r.above, a.ascending);
  }
  return r;
}

std::vector<int32_t> OverlapPlacer::by_lifetime(bool (*before)(const Lifetime&, const Lifetime&)) const {
  std::vector<int32_t> order(problem_.buffers.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    return before(problem_.buffers[static_cast<size_t>(a)].lifetime, problem_.buffers[static_cast<size_t>(b)].lifetime);
  });
  return order;
}

std::vector<int32_t> OverlapPlacer::reverse_order() const {
  return by_lifetime([](const Lifetime& a, const Lifetime& b) {
    if (a.last != b.last) return a.last > b.last;
    return a.first > b.first;  // at the same op its output before its inputs
  });
}

std::vector<int32_t> OverlapPlacer::creation_order() const {
  return by_lifetime([](const Lifetime& a, const Lifetime& b) {
    if (a.first != b.first) return a.first < b.first;
    return a.last > b.last;
  });
}

void OverlapPlacer::forbidden_ranges(int32_t root, const Partial& partial, StartRanges& ranges) const {
  ranges.clear();
  for (int32_t m : groups_.members(root)) {
    const int64_t size = problem_.buffers[static_cast<size_t>(m)].size;
    if (size == 0) continue;
    const int64_t shift = groups_.offset_in_root(m);
    work_ += static_cast<int64_t>(conflicts_[static_cast<size_t>(m)].size()) + 1;
    for (const auto& [t, paired] : conflicts_[static_cast<size_t>(m)]) {
      if (!partial.placed[static_cast<size_t>(t)]) continue;
      const int64_t t_start = partial.plan.offsets[static_cast<size_t>(t)];
      const int64_t t_size = problem_.buffers[static_cast<size_t>(t)].size;
      // Without overlap M must end by T's start or start at T's end; an
      // overlap pair lets it reach into T from below or above.
      const Reach r = paired ? reach(m, t, partial.walks) : Reach{};
      ranges.emplace_back(t_start - size + r.below - shift, t_start + t_size - r.above - shift);
    }
  }
}

namespace {

// Which walk a pair's placement needs: none when its buffers do not touch
// (or touch in a way no walk allows, as fixed offsets may), either when
// both walks allow it.
enum class Need { kNone, kEither, kAscending, kDescending };

Need need_of(const MemoryProblem& problem, const OverlapPair& pair, const Plan& plan) {
  const auto out = static_cast<size_t>(pair.output_buffer), in = static_cast<size_t>(pair.input_buffer);
  const int64_t out_start = plan.offsets[out], in_start = plan.offsets[in];
  const int64_t out_size = problem.buffers[out].size, in_size = problem.buffers[in].size;
  const bool touch = out_size > 0 && in_size > 0 && out_start < in_start + in_size && in_start < out_start + out_size;
  if (!touch) return Need::kNone;
  const bool ascending_ok = in_start - out_start >= out_size - pair.safe_overlap;
  const bool descending_ok =
      pair.safe_overlap_descending > 0 && out_start - in_start >= in_size - pair.safe_overlap_descending;
  if (ascending_ok && descending_ok) return Need::kEither;
  if (ascending_ok) return Need::kAscending;
  return descending_ok ? Need::kDescending : Need::kNone;
}

}  // namespace

bool OverlapPlacer::put(int32_t root, int64_t offset, Partial& partial, int32_t& mixed_walk) const {
  for (int32_t m : groups_.members(root)) {
    partial.plan.offsets[static_cast<size_t>(m)] = offset + groups_.offset_in_root(m);
    partial.placed[static_cast<size_t>(m)] = 1;
  }
  thread_local std::vector<std::pair<int32_t, Walk>> decided;  // this group's new walks (kept: put runs per group)
  decided.clear();
  auto walk_of = [&](int32_t index) {
    for (const auto& [i, w] : decided) {
      if (i == index) return w;
    }
    return partial.walks[static_cast<size_t>(index)];
  };
  for (int32_t m : groups_.members(root)) {
    for (int32_t p : pairs_of_[static_cast<size_t>(m)]) {
      const OverlapPair& pair = problem_.overlaps[static_cast<size_t>(p)];
      const int32_t other = pair.output_buffer == m ? pair.input_buffer : pair.output_buffer;
      if (!partial.placed[static_cast<size_t>(other)]) continue;
      const Need need = need_of(problem_, pair, partial.plan);
      if (need == Need::kNone || need == Need::kEither) continue;
      const Walk walk = need == Need::kAscending ? Walk::kAscending : Walk::kDescending;
      const int32_t index = walk_of_pair_[static_cast<size_t>(p)];
      const Walk current = walk_of(index);
      if (current == walk) continue;
      if (current != Walk::kUndecided) {
        mixed_walk = index;
        return false;
      }
      decided.emplace_back(index, walk);
    }
  }
  for (const auto& [index, walk] : decided) partial.walks[static_cast<size_t>(index)] = walk;
  return true;
}

void OverlapPlacer::unput(int32_t root, Partial& partial) const {
  for (int32_t m : groups_.members(root)) partial.placed[static_cast<size_t>(m)] = 0;
}

void OverlapPlacer::raise_top(int32_t root, Partial& partial) const {
  for (int32_t m : groups_.members(root)) {
    partial.top = std::max(partial.top, partial.plan.offsets[static_cast<size_t>(m)] + counted_size(static_cast<size_t>(m)));
  }
}

OverlapPlacer::Partial OverlapPlacer::start() const {
  const size_t n = problem_.buffers.size();
  Partial partial;
  partial.plan.offsets.assign(n, 0);
  partial.placed.assign(n, 0);
  partial.walks.assign(static_cast<size_t>(walk_count_), Walk::kUndecided);
  int32_t mixed_walk = -1;
  for (size_t r = 0; r < n; ++r) {
    const auto root = static_cast<int32_t>(r);
    if (!groups_.is_root(root) || !groups_.fixed_root_offset(root)) continue;
    put(root, *groups_.fixed_root_offset(root), partial, mixed_walk);  // a mixed walk here is the problem's own
    raise_top(root, partial);
  }
  return partial;
}

template <typename Choose>
bool OverlapPlacer::add_with(Partial& partial, int32_t buffer, Choose choose) const {
  const int32_t root = groups_.root(buffer);
  if (partial.placed[static_cast<size_t>(root)]) return true;
  thread_local StartRanges forbidden;  // kept: every group of every placement needs one
  int32_t mixed_walk = -1;
  while (true) {
    forbidden_ranges(root, partial, forbidden);
    std::optional<int64_t> offset = choose(root, forbidden);
    if (!offset) return false;
    if (put(root, *offset, partial, mixed_walk)) break;
    // The group would need one op to walk both ways: settle that op on
    // ascending (always allowed, only less overlap) and place it again.
    if (partial.walks[static_cast<size_t>(mixed_walk)] != Walk::kUndecided) break;
    partial.walks[static_cast<size_t>(mixed_walk)] = Walk::kAscending;
    unput(root, partial);
  }
  raise_top(root, partial);
  return true;
}

void OverlapPlacer::add(Partial& partial, int32_t buffer) const {
  add_with(partial, buffer, [&](int32_t root, StartRanges& forbidden) -> std::optional<int64_t> {
    return lowest_free_start(forbidden, root_alignment_[static_cast<size_t>(root)],
                             lowest_root_offset_[static_cast<size_t>(root)]);
  });
}

OverlapPlacer::Track OverlapPlacer::track(const std::vector<int32_t>& order) const {
  Track t;
  t.whole = start();
  const size_t n = problem_.buffers.size();
  t.placed_at.assign(n, std::numeric_limits<int32_t>::max());
  t.decided_at.assign(t.whole.walks.size(), std::numeric_limits<int32_t>::max());
  for (size_t b = 0; b < n; ++b) {
    if (t.whole.placed[b]) t.placed_at[b] = -1;
  }
  for (size_t w = 0; w < t.whole.walks.size(); ++w) {
    if (t.whole.walks[w] != Walk::kUndecided) t.decided_at[w] = -1;
  }
  t.top.reserve(order.size() + 1);
  t.top.push_back(t.whole.top);
  t.end_at.assign(order.size(), 0);
  t.settles_walk.assign(order.size(), 0);
  for (size_t k = 0; k < order.size(); ++k) {
    const int32_t root = groups_.root(order[k]);
    const bool new_group = !t.whole.placed[static_cast<size_t>(root)];
    add(t.whole, order[k]);
    if (new_group) {
      // Only the pairs of the group just placed can have decided a walk.
      for (int32_t m : groups_.members(root)) {
        t.placed_at[static_cast<size_t>(m)] = static_cast<int32_t>(k);
        t.end_at[k] = std::max(t.end_at[k], t.whole.plan.offsets[static_cast<size_t>(m)] + counted_size(static_cast<size_t>(m)));
        for (int32_t p : pairs_of_[static_cast<size_t>(m)]) {
          const auto w = static_cast<size_t>(walk_of_pair_[static_cast<size_t>(p)]);
          if (t.decided_at[w] == std::numeric_limits<int32_t>::max() && t.whole.walks[w] != Walk::kUndecided) {
            t.decided_at[w] = static_cast<int32_t>(k);
            t.settles_walk[k] = 1;
          }
        }
      }
    }
    t.top.push_back(t.whole.top);
  }
  return t;
}

void OverlapPlacer::prefix(const Track& track, int32_t k, Partial& partial) const {
  const size_t n = track.placed_at.size();
  partial.plan.offsets.assign(n, 0);
  partial.placed.assign(n, 0);
  for (size_t b = 0; b < n; ++b) {
    if (track.placed_at[b] < k) {
      partial.placed[b] = 1;
      partial.plan.offsets[b] = track.whole.plan.offsets[b];
    }
  }
  partial.walks.assign(track.decided_at.size(), Walk::kUndecided);
  for (size_t w = 0; w < track.decided_at.size(); ++w) {
    if (track.decided_at[w] < k) partial.walks[w] = track.whole.walks[w];
  }
  partial.top = track.top[static_cast<size_t>(k)];
}

bool OverlapPlacer::same_as_prefix(const Partial& partial, const Track& track, int32_t k) {
  for (size_t b = 0; b < track.placed_at.size(); ++b) {
    const bool placed = track.placed_at[b] < k;
    if (static_cast<bool>(partial.placed[b]) != placed) return false;
    if (partial.plan.offsets[b] != (placed ? track.whole.plan.offsets[b] : 0)) return false;
  }
  for (size_t w = 0; w < track.decided_at.size(); ++w) {
    if (partial.walks[w] != (track.decided_at[w] < k ? track.whole.walks[w] : Walk::kUndecided)) return false;
  }
  return true;
}

void OverlapPlacer::follow(const Track& track, const std::vector<int32_t>& order, int32_t k, Partial& partial,
                           int64_t limit, int32_t skip) const {
  const size_t n = problem_.buffers.size();
  // Buffers whose placement may differ from the track's: those conflicting
  // with a buffer placed elsewhere, or paired with one, or with a pair
  // whose op walks otherwise.
  thread_local std::vector<char> reached, walk_differs;
  reached.assign(n, 0);
  walk_differs.assign(static_cast<size_t>(walk_count_), 0);
  auto placed_elsewhere = [&](size_t b) {
    for (const Conflict& c : conflicts_[b]) reached[static_cast<size_t>(c.buffer)] = 1;
    for (int32_t p : pairs_of_[b]) {
      const OverlapPair& pair = problem_.overlaps[static_cast<size_t>(p)];
      reached[static_cast<size_t>(pair.output_buffer)] = reached[static_cast<size_t>(pair.input_buffer)] = 1;
    }
  };
  auto walk_elsewhere = [&](size_t w) {
    if (walk_differs[w]) return;
    walk_differs[w] = 1;
    for (int32_t p : pairs_of_walk_[w]) {
      const OverlapPair& pair = problem_.overlaps[static_cast<size_t>(p)];
      reached[static_cast<size_t>(pair.output_buffer)] = reached[static_cast<size_t>(pair.input_buffer)] = 1;
    }
  };
  // The walk's state in the track once its first `placed` adds have run.
  auto track_walk = [&](size_t w, int32_t placed) {
    return track.decided_at[w] < placed ? track.whole.walks[w] : Walk::kUndecided;
  };
  // The walks the buffers of `group` settle, where they differ from the
  // track's after its first `placed` adds.
  auto compare_walks = [&](int32_t group, int32_t placed) {
    for (int32_t m : groups_.members(group)) {
      for (int32_t p : pairs_of_[static_cast<size_t>(m)]) {
        const auto w = static_cast<size_t>(walk_of_pair_[static_cast<size_t>(p)]);
        if (partial.walks[w] != track_walk(w, placed)) walk_elsewhere(w);
      }
    }
  };
  if (skip >= 0) {
    // The track's first k and order[skip]'s group: only that group's
    // placement and the walks it settled can differ.
    const int32_t group = groups_.root(order[static_cast<size_t>(skip)]);
    for (int32_t m : groups_.members(group)) placed_elsewhere(static_cast<size_t>(m));
    compare_walks(group, k);
  } else {
    for (size_t b = 0; b < n; ++b) {
      if (partial.placed[b] && (track.placed_at[b] >= k || partial.plan.offsets[b] != track.whole.plan.offsets[b])) {
        placed_elsewhere(b);
      }
    }
    for (size_t w = 0; w < partial.walks.size(); ++w) {
      if (partial.walks[w] != track_walk(w, k)) walk_elsewhere(w);
    }
  }
  for (size_t pos = static_cast<size_t>(k); pos < order.size() && partial.top < limit; ++pos) {
    if (static_cast<int32_t>(pos) == skip) {
      // Placed already (and counted as placed elsewhere): the walks the
      // track settled with it may be settled otherwise here.
      compare_walks(groups_.root(order[pos]), static_cast<int32_t>(pos) + 1);
      continue;
    }
    const int32_t root = groups_.root(order[pos]);
    if (partial.placed[static_cast<size_t>(root)]) continue;
    const std::span<const int32_t> members = groups_.members(root);
    const bool may_differ = std::any_of(members.begin(), members.end(),
                                        [&](int32_t m) { return reached[static_cast<size_t>(m)] != 0; });
    if (!may_differ) {
      for (int32_t m : members) {
        partial.plan.offsets[static_cast<size_t>(m)] = track.whole.plan.offsets[static_cast<size_t>(m)];
        partial.placed[static_cast<size_t>(m)] = 1;
        if (!track.settles_walk[pos]) continue;
        for (int32_t p : pairs_of_[static_cast<size_t>(m)]) {
          const auto w = static_cast<size_t>(walk_of_pair_[static_cast<size_t>(p)]);
          if (track.decided_at[w] == static_cast<int32_t>(pos)) partial.walks[w] = track.whole.walks[w];
        }
      }
      partial.top = std::max(partial.top, track.end_at[pos]);
      continue;
    }
    add(partial, order[pos]);
    for (int32_t m : members) {
      if (partial.plan.offsets[static_cast<size_t>(m)] != track.whole.plan.offsets[static_cast<size_t>(m)]) {
        placed_elsewhere(static_cast<size_t>(m));
      }
    }
    compare_walks(root, static_cast<int32_t>(pos) + 1);
  }
}

Plan OverlapPlacer::finish(Partial&& partial) const {
  Plan plan = std::move(partial.plan);
  plan.arena_size = rounded_arena_bytes(problem_, plan, end_rounding_);
  plan.descending_ops = descending_ops(problem_, plan);
  return plan;
}

int64_t OverlapPlacer::counted_extent_above_root(int32_t root) const {
  int64_t extent = 0;
  for (int32_t m : groups_.members(root)) {
    extent = std::max(extent, groups_.offset_in_root(m) + counted_size(static_cast<size_t>(m)));
  }
  return extent;
}

Plan OverlapPlacer::place(const std::vector<int32_t>& order) const {
  Partial partial = start();
  for (int32_t x : order) add(partial, x);
  return finish(std::move(partial));
}

std::optional<Plan> OverlapPlacer::place_highest(const std::vector<int32_t>& order, int64_t arena) const {
  Partial partial = start();
  if (partial.top > arena) return std::nullopt;  // a fixed group ends above it
  for (int32_t x : order) {
    const bool placed = add_with(partial, x, [&](int32_t root, StartRanges& forbidden) {
      return highest_free_start(forbidden, root_alignment_[static_cast<size_t>(root)],
                                lowest_root_offset_[static_cast<size_t>(root)], arena - counted_extent_above_root(root));
    });
    if (!placed) return std::nullopt;
  }
  return finish(std::move(partial));
}

std::vector<int32_t> descending_ops(const MemoryProblem& problem, const Plan& plan) {
  std::vector<int32_t> ops;
  for (const OverlapPair& pair : problem.overlaps) {
    if (need_of(problem, pair, plan) == Need::kDescending) ops.push_back(pair.op);
  }
  std::sort(ops.begin(), ops.end());
  ops.erase(std::unique(ops.begin(), ops.end()), ops.end());
  return ops;
}

}  // namespace dmo

namespace dmo {

int64_t rounded_arena_bytes(const MemoryProblem& problem, const Plan& plan, int64_t end_rounding) {
  int64_t arena = 0;
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    arena = std::max(arena, plan.offsets[i] + align_up(problem.buffers[i].size, std::max<int64_t>(end_rounding, 1)));
  }
  return arena;
}

}  // namespace dmo

#include "dmo/plan/bounds.h"

#include <algorithm>
#include <map>
#include <utility>

#include "dmo/plan/alias_groups.h"

namespace dmo {

int64_t naive_bytes(const MemoryProblem& problem) {
  int64_t total = 0;
  for (const BufferRequest& b : problem.buffers) total += b.size;
  return total;
}

int64_t union_bytes(std::vector<std::pair<int64_t, int64_t>>& spans) {
  std::sort(spans.begin(), spans.end());
  int64_t bytes = 0, covered_to = INT64_MIN;
  for (const auto& [start, end] : spans) {
    const int64_t from = std::max(start, covered_to);
    if (end > from) bytes += end - from;
    covered_to = std::max(covered_to, end);
  }
  return bytes;
}

namespace {

// Ops are [0, op_count); buffers created before op 0 count from op 0.
std::pair<int32_t, int32_t> ops_covered(const MemoryProblem& problem, const Lifetime& life) {
  return {std::max(life.first, 0), std::min(life.last, problem.op_count - 1)};
}

// Bytes the members of one alias group live at `op` cover together.
int64_t group_bytes_at(const MemoryProblem& problem, const AliasGroups& groups, int32_t root, int32_t op) {
  std::vector<std::pair<int64_t, int64_t>> spans;
  for (int32_t m : groups.members(root)) {
    const BufferRequest& b = problem.buffers[static_cast<size_t>(m)];
    if (b.size > 0 && b.lifetime.covers(op)) spans.emplace_back(groups.offset_in_root(m), groups.offset_in_root(m) + b.size);
  }
  return union_bytes(spans);
}

// The largest end of a fixed buffer: no plan honouring it is smaller.
int64_t fixed_end(const MemoryProblem& problem) {
  int64_t end = 0;
  for (const BufferRequest& b : problem.buffers) {
    if (b.fixed_offset) end = std::max(end, *b.fixed_offset + b.size);
  }
  return end;
}

}  // namespace

std::vector<int64_t> live_bytes_per_op(const MemoryProblem& problem) {
  const AliasGroups groups(problem);
  // Difference array over op indices: +size at first use, -size after last.
  std::vector<int64_t> delta(static_cast<size_t>(problem.op_count) + 1, 0);
  std::vector<int32_t> grouped_roots;
  // Fixed buffers (an accelerator's or a plan file's offsets) may overlap
  // each other by their own plan: they count as the bytes they cover.
  std::vector<int32_t> fixed;
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    const auto b = static_cast<int32_t>(i);
    if (groups.members(groups.root(b)).size() > 1) {
      if (groups.is_root(b)) grouped_roots.push_back(b);
      continue;
    }
    auto [first, last] = ops_covered(problem, problem.buffers[i].lifetime);
    if (first > last) continue;
    if (problem.buffers[i].fixed_offset) {
      fixed.push_back(b);
      continue;
    }
    delta[static_cast<size_t>(first)] += problem.buffers[i].size;
    delta[static_cast<size_t>(last) + 1] -= problem.buffers[i].size;
  }
  std::vector<int64_t> live(static_cast<size_t>(problem.op_count));
  int64_t running = 0;
  for (size_t i = 0; i < live.size(); ++i) live[i] = running += delta[i];
  if (!fixed.empty()) {
    std::vector<std::vector<std::pair<int64_t, int64_t>>> spans(live.size());
    for (int32_t b : fixed) {
      const BufferRequest& buffer = problem.buffers[static_cast<size_t>(b)];
      const auto [first, last] = ops_covered(problem, buffer.lifetime);
      for (int32_t op = first; op <= last; ++op) {
        spans[static_cast<size_t>(op)].emplace_back(*buffer.fixed_offset, *buffer.fixed_offset + buffer.size);
      }
    }
    for (size_t op = 0; op < live.size(); ++op) live[op] += union_bytes(spans[op]);
  }
  for (int32_t root : grouped_roots) {
    for (int32_t op = 0; op < problem.op_count; ++op) live[static_cast<size_t>(op)] += group_bytes_at(problem, groups, root, op);
  }
  return live;
}

std::vector<int64_t> overlap_saving_per_op(const MemoryProblem& problem) {
  const auto op_count = static_cast<size_t>(std::max(problem.op_count, 0));
  std::vector<int64_t> saving(op_count, 0);
  // The pairs live at each op: a pair lives where both its buffers do, one
  // interval, so the ops without a pair cost nothing (long split schedules).
  // One list, op after op: op o's pairs are live_pairs[begin[o] .. begin[o + 1]).
  auto live_interval = [&](const OverlapPair& pair) {
    const Lifetime& out = problem.buffers[static_cast<size_t>(pair.output_buffer)].lifetime;
    const Lifetime& in = problem.buffers[static_cast<size_t>(pair.input_buffer)].lifetime;
    return std::make_pair(std::max({out.first, in.first, 0}), std::min({out.last, in.last, problem.op_count - 1}));
  };
  std::vector<int32_t> starting(op_count + 1, 0);  // pairs starting to live at op, less those ending before it
  for (const OverlapPair& pair : problem.overlaps) {
    const auto [first, last] = live_interval(pair);
    if (first > last) continue;
    ++starting[static_cast<size_t>(first)];
    --starting[static_cast<size_t>(last) + 1];
  }
  std::vector<int32_t> begin(op_count + 1, 0);
  int32_t live = 0;
  for (size_t op = 0; op < op_count; ++op) {
    live += starting[op];
    begin[op + 1] = begin[op] + live;
  }
  std::vector<int32_t> live_pairs(static_cast<size_t>(begin[op_count]));
  std::vector<int32_t> next(begin.begin(), begin.end() - 1);
  for (size_t p = 0; p < problem.overlaps.size(); ++p) {
    const auto [first, last] = live_interval(problem.overlaps[p]);
    for (int32_t op = first; op <= last; ++op) live_pairs[static_cast<size_t>(next[static_cast<size_t>(op)]++)] = static_cast<int32_t>(p);
  }
  // Per buffer the largest safe overlap of its pairs live at one op.
  auto raise = [](std::vector<std::pair<int32_t, int64_t>>& largest, int32_t buffer, int64_t overlap) {
    for (auto& [b, value] : largest) {
      if (b == buffer) {
        value = std::max(value, overlap);
        return;
      }
    }
    largest.emplace_back(buffer, overlap);
  };
  std::vector<std::pair<int32_t, int64_t>> by_output, by_input;
  for (size_t op = 0; op < op_count; ++op) {
    if (begin[op] == begin[op + 1]) continue;
    // The largest safe overlap of each output's and each input's live pairs.
    by_output.clear();
    by_input.clear();
    for (int32_t i = begin[op]; i < begin[op + 1]; ++i) {
      const int32_t p = live_pairs[static_cast<size_t>(i)];
      const OverlapPair& pair = problem.overlaps[static_cast<size_t>(p)];
      const int64_t overlap = std::max(pair.safe_overlap, pair.safe_overlap_descending);
      raise(by_output, pair.output_buffer, overlap);
      raise(by_input, pair.input_buffer, overlap);
    }
    int64_t outputs = 0, inputs = 0;
    for (const auto& [buffer, overlap] : by_output) outputs += overlap;
    for (const auto& [buffer, overlap] : by_input) inputs += overlap;
    saving[op] = std::min(outputs, inputs);
  }
  return saving;
}

LiveProfile live_profile(const MemoryProblem& problem) {
  return {live_bytes_per_op(problem), overlap_saving_per_op(problem)};
}

std::vector<int64_t> LiveProfile::less_saving() const {
  std::vector<int64_t> need = live;
  for (size_t op = 0; op < need.size(); ++op) need[op] -= saving[op];
  return need;
}

int64_t lower_bound_bytes(const MemoryProblem& problem) {
  return lower_bound_bytes(problem, live_bytes_per_op(problem));
}

int64_t lower_bound_bytes(const MemoryProblem& problem, const std::vector<int64_t>& live) {
  int64_t bound = live.empty() ? 0 : *std::max_element(live.begin(), live.end());
  // Buffers outside every op (unused tensors) still need their own bytes.
  for (const BufferRequest& b : problem.buffers) bound = std::max(bound, b.size);
  return std::max(bound, fixed_end(problem));
}

int64_t lower_bound_with_overlap_bytes(const MemoryProblem& problem) {
  return lower_bound_with_overlap_bytes(problem, live_profile(problem));
}

int64_t lower_bound_with_overlap_bytes(const MemoryProblem& problem, const LiveProfile& profile) {
  const std::vector<int64_t>& live = profile.live;
  const std::vector<int64_t>& saving = profile.saving;
  int64_t bound = 0;
  for (size_t i = 0; i < live.size(); ++i) bound = std::max(bound, live[i] - saving[i]);
  for (const BufferRequest& b : problem.buffers) bound = std::max(bound, b.size);
  return std::max(bound, fixed_end(problem));
}

namespace {

// Which way an op's forced overlap must go: only ascending (output below,
// starts `delta` = |O| - O_s apart), only descending (output above, ends
// |O| - O_s_descending apart), or either.
enum class Walk { kAscending, kDescending, kEither };

Walk walk_of(const OverlapPair& pair) {
  if (pair.safe_overlap > 0 && pair.safe_overlap_descending > 0) return Walk::kEither;
  return pair.safe_overlap_descending > 0 ? Walk::kDescending : Walk::kAscending;
}

// What runs of forced overlaps need when the arena is `arena` bytes. Along a
// run of ops that can only walk ascending each output starts at least its
// delta below its input, so the run's first input ends its size plus the
// sum of the deltas above the last output's start; runs that can only walk
// descending are the mirror image. An op that may walk either way lets the
// run turn back, so runs are cut there (each part still bounds the arena).
int64_t chain_requirement(const MemoryProblem& problem, const std::vector<int64_t>& live,
                          const std::vector<const OverlapPair*>& pair_of_op,
                          const std::vector<int32_t>& next_op, int64_t arena) {
  auto forced = [&](int32_t op) { return live[static_cast<size_t>(op)] > arena && pair_of_op[static_cast<size_t>(op)]; };
  auto size = [&](int32_t buffer) { return problem.buffers[static_cast<size_t>(buffer)].size; };
  int64_t need = 0;
  for (int32_t start = 0; start < problem.op_count; ++start) {
    if (!forced(start)) continue;
    const OverlapPair* first = pair_of_op[static_cast<size_t>(start)];
    const Walk walk = walk_of(*first);
    if (walk == Walk::kEither) continue;
    const int64_t input_size = size(first->input_buffer);
    int64_t displacement = 0;
    for (int32_t op = start; op >= 0 && forced(op); op = next_op[static_cast<size_t>(op)]) {
      const OverlapPair* pair = pair_of_op[static_cast<size_t>(op)];
      if (walk_of(*pair) != walk) break;
      const int64_t overlap = walk == Walk::kAscending ? pair->safe_overlap : pair->safe_overlap_descending;
      displacement += size(pair->output_buffer) - overlap;
      need = std::max(need, input_size + displacement);
    }
  }
  return need;
}

}  // namespace

int64_t chain_lower_bound_with_overlap_bytes(const MemoryProblem& problem) {
  return chain_lower_bound_with_overlap_bytes(problem, live_profile(problem));
}

int64_t chain_lower_bound_with_overlap_bytes(const MemoryProblem& problem, const LiveProfile& profile) {
  const int64_t per_op = lower_bound_with_overlap_bytes(problem, profile);
  const std::vector<int64_t>& live = profile.live;
  // The pair that must overlap at a forced op: only where one pair is live.
  std::vector<const OverlapPair*> pair_of_op(live.size(), nullptr);
  std::vector<int32_t> pairs_live(live.size(), 0);
  const AliasGroups groups(problem);
  // Fixed buffers sit where their own plan put them, however they overlap.
  auto fixed = [&](int32_t buffer) { return problem.buffers[static_cast<size_t>(buffer)].fixed_offset.has_value(); };
  for (const OverlapPair& pair : problem.overlaps) {
    const Lifetime& out = problem.buffers[static_cast<size_t>(pair.output_buffer)].lifetime;
    const Lifetime& in = problem.buffers[static_cast<size_t>(pair.input_buffer)].lifetime;
    for (int32_t op = std::max({out.first, in.first, 0}); op <= std::min({out.last, in.last, problem.op_count - 1}); ++op) {
      if (++pairs_live[static_cast<size_t>(op)] == 1 && !groups.same_group(pair.output_buffer, pair.input_buffer) &&
          !fixed(pair.output_buffer) && !fixed(pair.input_buffer)) {
        pair_of_op[static_cast<size_t>(op)] = &pair;
      } else {
        pair_of_op[static_cast<size_t>(op)] = nullptr;
      }
    }
  }
  // next_op[k]: the op whose overlapped input is op k's overlapped output.
  std::vector<int32_t> op_of_input(problem.buffers.size(), -1);
  for (size_t k = 0; k < pair_of_op.size(); ++k) {
    if (pair_of_op[k]) op_of_input[static_cast<size_t>(pair_of_op[k]->input_buffer)] = static_cast<int32_t>(k);
  }
  std::vector<int32_t> next_op(live.size(), -1);
  for (size_t k = 0; k < pair_of_op.size(); ++k) {
    if (pair_of_op[k]) next_op[k] = op_of_input[static_cast<size_t>(pair_of_op[k]->output_buffer)];
  }
  // The requirement only falls as the arena grows (fewer forced ops), so the
  // smallest arena meeting it is found by bisection.
  auto meets = [&](int64_t arena) { return arena >= chain_requirement(problem, live, pair_of_op, next_op, arena); };
  if (meets(per_op)) return per_op;
  int64_t low = per_op, high = std::max(per_op, chain_requirement(problem, live, pair_of_op, next_op, per_op));
  while (!meets(high)) high *= 2;
  while (high - low > 1) {
    int64_t mid = low + (high - low) / 2;
    (meets(mid) ? high : low) = mid;
  }
  return high;
}

}  // namespace dmo

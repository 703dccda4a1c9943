#include "dmo/plan/bounds.h"

#include <algorithm>

namespace dmo {

int64_t naive_bytes(const MemoryProblem& problem) {
  int64_t total = 0;
  for (const BufferRequest& b : problem.buffers) total += b.size;
  return total;
}

std::vector<int64_t> live_bytes_per_op(const MemoryProblem& problem) {
  // Difference array over op indices: +size at first use, -size after last.
  std::vector<int64_t> delta(static_cast<size_t>(problem.op_count) + 1, 0);
  for (const BufferRequest& b : problem.buffers) {
    int32_t first = std::max(b.lifetime.first, 0);
    int32_t last = std::min(b.lifetime.last, problem.op_count - 1);
    if (first > last) continue;
    delta[static_cast<size_t>(first)] += b.size;
    delta[static_cast<size_t>(last) + 1] -= b.size;
  }
  std::vector<int64_t> live(static_cast<size_t>(problem.op_count));
  int64_t running = 0;
  for (size_t i = 0; i < live.size(); ++i) live[i] = running += delta[i];
  return live;
}

int64_t lower_bound_bytes(const MemoryProblem& problem) {
  std::vector<int64_t> live = live_bytes_per_op(problem);
  int64_t bound = live.empty() ? 0 : *std::max_element(live.begin(), live.end());
  // Buffers outside every op (unused tensors) still need their own bytes.
  for (const BufferRequest& b : problem.buffers) bound = std::max(bound, b.size);
  return bound;
}

int64_t lower_bound_with_overlap_bytes(const MemoryProblem& problem) {
  std::vector<int64_t> live = live_bytes_per_op(problem);
  std::vector<int64_t> saving(live.size(), 0);
  for (const OverlapPair& pair : problem.overlaps) {
    if (pair.op < 0 || static_cast<size_t>(pair.op) >= saving.size()) continue;
    saving[static_cast<size_t>(pair.op)] =
        std::max({saving[static_cast<size_t>(pair.op)], pair.safe_overlap, pair.safe_overlap_descending});
  }
  int64_t bound = 0;
  for (size_t i = 0; i < live.size(); ++i) bound = std::max(bound, live[i] - saving[i]);
  for (const BufferRequest& b : problem.buffers) bound = std::max(bound, b.size);
  return bound;
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
  const int64_t per_op = lower_bound_with_overlap_bytes(problem);
  std::vector<int64_t> live = live_bytes_per_op(problem);
  std::vector<const OverlapPair*> pair_of_op(live.size(), nullptr);
  for (const OverlapPair& pair : problem.overlaps) {
    if (pair.op < 0 || static_cast<size_t>(pair.op) >= live.size()) continue;
    const OverlapPair*& slot = pair_of_op[static_cast<size_t>(pair.op)];
    auto best = [](const OverlapPair& p) { return std::max(p.safe_overlap, p.safe_overlap_descending); };
    if (!slot || best(pair) > best(*slot)) slot = &pair;
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

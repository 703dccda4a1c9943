#include "dmo/plan/rolling_packing.h"

#include <algorithm>
#include <vector>

#include "dmo/plan/bounds.h"
#include "dmo/plan/exact_packing.h"
#include "dmo/plan/overlap_placement.h"
#include "dmo/plan/plan_validator.h"

namespace dmo {

namespace {

// Buffers in and around one packing beyond which it is not tried: a node
// costs about the square of them.
constexpr size_t kMaxAround = 512;

// Packs the movable buffers live at the op with the most live bytes
// around the placed ones live there, and takes them out of `births`.
void seed_at_peak(const MemoryProblem& problem, std::vector<int32_t>& births, std::vector<int64_t>& offsets,
                  std::span<const int32_t> descending_ops, const ExactPackingOptions& packing) {
  const LiveProfile profile = live_profile(problem);
  if (profile.live.empty()) return;
  const auto peak = static_cast<int32_t>(std::max_element(profile.live.begin(), profile.live.end()) - profile.live.begin());
  std::vector<int32_t> moving;
  for (int32_t b : births) {
    if (problem.buffers[static_cast<size_t>(b)].lifetime.covers(peak)) moving.push_back(b);
  }
  std::vector<PlacedBuffer> staying;
  for (size_t c = 0; c < problem.buffers.size(); ++c) {
    if (offsets[c] >= 0 && problem.buffers[c].size > 0 && problem.buffers[c].lifetime.covers(peak)) {
      staying.push_back({static_cast<int32_t>(c), offsets[c]});
    }
  }
  if (moving.empty() || moving.size() + staying.size() > kMaxAround) return;
  const std::optional<std::vector<int64_t>> found = exact_packing_around(problem, moving, staying, descending_ops, packing);
  if (!found) return;
  for (size_t k = 0; k < moving.size(); ++k) offsets[static_cast<size_t>(moving[k])] = (*found)[k];
  std::erase_if(births, [&](int32_t b) { return offsets[static_cast<size_t>(b)] >= 0; });
}

// The rolling packing, its buffers first seeded at the peak or not; `work`
// counts against options.work_budget across runs.
std::optional<Plan> roll(const MemoryProblem& problem, const Plan& plan, int64_t target,
                         const RollingPackingOptions& options, bool seed_peak, int64_t& work) {
  const size_t n = problem.buffers.size();
  if (plan.offsets.size() != n || problem.op_count <= 0 || options.stretch <= 0) return std::nullopt;
  const int64_t rounding = std::max<int64_t>(options.end_rounding, 1);
  std::vector<char> movable = movable_buffers(problem, options.alignment);
  std::vector<int64_t> offsets = plan.offsets;
  std::vector<int32_t> births;  // the buffers to pack, by first use
  for (size_t b = 0; b < n; ++b) {
    const BufferRequest& buffer = problem.buffers[b];
    if (plan.offsets[b] < 0) movable[b] = 0;
    if (movable[b]) {
      births.push_back(static_cast<int32_t>(b));
      offsets[b] = -1;
    } else if (buffer.size > 0 && plan.offsets[b] >= 0 && plan.offsets[b] + align_up(buffer.size, rounding) > target) {
      return std::nullopt;  // a buffer that stays is above the target
    }
  }
  if (births.empty()) return std::nullopt;
  ExactPackingOptions packing;
  packing.alignment = options.alignment;
  packing.end_rounding = rounding;
  packing.node_budget = options.node_budget;
  packing.ceiling = target + 1;
  packing.good_enough = target;
  // Buffers born early and living across the graph are placed with the
  // first stretches, blind to the peak they must later tile: first pack
  // the buffers live at the op with the most live bytes, and keep them.
  if (seed_peak) seed_at_peak(problem, births, offsets, plan.descending_ops, packing);
  std::stable_sort(births.begin(), births.end(), [&](int32_t a, int32_t b) {
    return problem.buffers[static_cast<size_t>(a)].lifetime.first <
           problem.buffers[static_cast<size_t>(b)].lifetime.first;
  });

  const auto stretch = static_cast<size_t>(options.stretch);
  const auto lookahead = static_cast<size_t>(std::max(options.lookahead, 0));
  size_t packed = 0;  // births[0, packed) have their offsets
  size_t anchor = 0;  // the stretch being packed starts here; earlier ones are undone to `packed`
  size_t back = 0;    // stretches undone for it
  const size_t setup = n + problem.overlaps.size();
  while (packed < births.size()) {
    const size_t keep_end = std::min(anchor + stretch, births.size());
    const size_t window_end = std::min(keep_end + lookahead, births.size());
    const std::vector<int32_t> moving(births.begin() + static_cast<std::ptrdiff_t>(packed),
                                      births.begin() + static_cast<std::ptrdiff_t>(window_end));
    // Every placed buffer that may be live with one of them stays, as an obstacle.
    Lifetime span = problem.buffers[static_cast<size_t>(moving.front())].lifetime;
    for (int32_t b : moving) {
      const Lifetime& life = problem.buffers[static_cast<size_t>(b)].lifetime;
      span.first = std::min(span.first, life.first);
      span.last = std::max(span.last, life.last);
    }
    std::vector<PlacedBuffer> staying;
    for (size_t c = 0; c < n; ++c) {
      if (offsets[c] >= 0 && problem.buffers[c].size > 0 && problem.buffers[c].lifetime.intersects(span)) {
        staying.push_back({static_cast<int32_t>(c), offsets[c]});
      }
    }
    const size_t around = moving.size() + staying.size();
    if (around > kMaxAround) return std::nullopt;
    int64_t nodes = 0;
    const std::optional<std::vector<int64_t>> found =
        exact_packing_around(problem, moving, staying, plan.descending_ops, packing, &nodes);
    // A node weighs the buffers it moves times those in and around them;
    // collecting the buffers and setting up the packing walk the whole
    // problem: counted too, so a huge graph gives up after a few packings.
    work += std::max<int64_t>(nodes, 1) * static_cast<int64_t>(around) * static_cast<int64_t>(moving.size()) +
            static_cast<int64_t>(setup);
    if (work > options.work_budget) return std::nullopt;
    if (found) {
      for (size_t k = 0; k < keep_end - packed; ++k) offsets[static_cast<size_t>(moving[k])] = (*found)[k];
      packed = anchor = keep_end;
      back = 0;
      continue;
    }
    // Undo the stretches before it, twice as many each time.
    back = back == 0 ? 1 : 2 * back;
    if (packed == 0 || back > static_cast<size_t>(std::max(options.max_back, 0))) return std::nullopt;
    const size_t undo_to = anchor > back * stretch ? anchor - back * stretch : 0;
    for (size_t k = undo_to; k < packed; ++k) offsets[static_cast<size_t>(births[k])] = -1;
    packed = undo_to;
  }

  Plan result = plan;
  result.offsets = std::move(offsets);
  result.arena_size = rounded_arena_bytes(problem, result, rounding);
  result.descending_ops = descending_ops(problem, result);
  // Every pair of buffers live together was in one packing, one of them
  // moving; checked again all the same.
  if (result.arena_size > target || !validate_plan(problem, result, options.alignment).empty()) return std::nullopt;
  return result;
}

}  // namespace

std::optional<Plan> pack_rolling(const MemoryProblem& problem, const Plan& plan, int64_t target,
                                 const RollingPackingOptions& options) {
  int64_t work = 0;
  if (std::optional<Plan> seeded = roll(problem, plan, target, options, /*seed_peak=*/true, work)) return seeded;
  return roll(problem, plan, target, options, /*seed_peak=*/false, work);
}

}  // namespace dmo

#include "dmo/plan/peak_repair.h"

#include <algorithm>
#include <vector>

#include "dmo/plan/bounds.h"
#include "dmo/plan/exact_packing.h"
#include "dmo/plan/overlap_placement.h"

namespace dmo {

namespace {

class PeakRepairer {
 public:
  PeakRepairer(const MemoryProblem& problem, const PeakRepairOptions& options)
      : problem_(problem),
        options_(options),
        eligible_(movable_buffers(problem, options.alignment)),
        live_(live_bytes_per_op(problem)),
        work_left_(options.work_budget) {}

  bool out_of_work() const { return work_left_ <= 0; }

  // The buffers whose rounded end is at `top` in `plan`.
  std::vector<int32_t> at_top(const Plan& plan, int64_t top) const {
    std::vector<int32_t> tops;
    for (size_t b = 0; b < problem_.buffers.size(); ++b) {
      if (plan.offsets[b] >= 0 && problem_.buffers[b].size > 0 && end(plan, b) >= top) {
        tops.push_back(static_cast<int32_t>(b));
      }
    }
    std::stable_sort(tops.begin(), tops.end(), [&](int32_t a, int32_t b) {
      return problem_.buffers[static_cast<size_t>(a)].lifetime.first <
             problem_.buffers[static_cast<size_t>(b)].lifetime.first;
    });
    return tops;
  }

  // Moves `buffer` below `top` in `plan`, with the window around it, or
  // else to a lower offset, clearing the buffers it lands on; false when
  // neither works (`plan` may then be changed, below `top` still).
  bool lower(Plan& plan, int32_t buffer, int64_t top) {
    if (end(plan, static_cast<size_t>(buffer)) < top) return true;  // moved with an earlier window
    if (!eligible_[static_cast<size_t>(buffer)]) return false;
    if (repack(plan, window_around(buffer, -1), top)) return true;
    return move_and_clear(plan, buffer, top);
  }

 private:
  // Re-packs `movable` (and any buffer around them reaching the top)
  // exactly below `top`, every other buffer staying; false when no such
  // packing is found.
  bool repack(Plan& plan, std::vector<int32_t> movable, int64_t top) {
    // Buffers of the window's times that stay but reach the top must move
    // too, or nothing can be below it.
    std::vector<PlacedBuffer> staying;
    for (;;) {
      staying = around(plan, movable);
      bool grew = false;
      for (const PlacedBuffer& s : staying) {
        if (end(plan, static_cast<size_t>(s.buffer)) < top) continue;
        if (!eligible_[static_cast<size_t>(s.buffer)] ||
            static_cast<int32_t>(movable.size()) >= 2 * options_.max_buffers) {
          return false;
        }
        movable.push_back(s.buffer);
        grew = true;
      }
      if (!grew) break;
    }
    ExactPackingOptions packing;
    packing.alignment = options_.alignment;
    packing.end_rounding = options_.end_rounding;
    // A node costs about the square of the buffers in and around the
    // window: a long-lived buffer at the top brings many that stay.
    const auto around_count = static_cast<int64_t>(movable.size() + staying.size());
    if (around_count > options_.max_around || work_left_ <= 0) return false;
    packing.node_budget = std::max<int64_t>(100, options_.node_budget * 32 / std::max<int64_t>(32, around_count));
    packing.ceiling = top;
    int64_t nodes = 0;
    const auto offsets = exact_packing_around(problem_, movable, staying, plan.descending_ops, packing, &nodes);
    work_left_ -= std::max<int64_t>(nodes, 1) * around_count;
    if (!offsets) return false;
    for (size_t k = 0; k < movable.size(); ++k) plan.offsets[static_cast<size_t>(movable[k])] = (*offsets)[k];
    return true;
  }

  // For a long-lived buffer, whose window holds only a stretch of its life:
  // put it at an offset below the top (those at 0 or at the end of a
  // buffer live with it, fewest bytes landed on first) and re-pack a
  // window around each buffer whose bytes it lands on, itself staying.
  // The first offset where every window packs is kept.
  bool move_and_clear(Plan& plan, int32_t buffer, int64_t top) {
    const auto b = static_cast<size_t>(buffer);
    const int64_t size = problem_.buffers[b].size;
    const int64_t alignment = options_.alignment;
    std::vector<int32_t> together;
    for (size_t c = 0; c < problem_.buffers.size(); ++c) {
      if (c != b && plan.offsets[c] >= 0 && problem_.buffers[c].size > 0 &&
          problem_.buffers[c].lifetime.intersects(problem_.buffers[b].lifetime)) {
        together.push_back(static_cast<int32_t>(c));
      }
    }
    auto landed_on = [&](const Plan& p, int64_t x) {
      std::vector<int32_t> hit;
      for (int32_t c : together) {
        const int64_t from = p.offsets[static_cast<size_t>(c)];
        if (from < x + size && x < from + problem_.buffers[static_cast<size_t>(c)].size) hit.push_back(c);
      }
      return hit;
    };
    struct Spot {
      int64_t offset, landed_bytes;
    };
    std::vector<Spot> spots;
    std::vector<int64_t> offsets = {0};
    for (int32_t c : together) {
      offsets.push_back(align_up(plan.offsets[static_cast<size_t>(c)] + problem_.buffers[static_cast<size_t>(c)].size,
                                 alignment));
    }
    std::sort(offsets.begin(), offsets.end());
    offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
    for (int64_t x : offsets) {
      if (x + align_up(size, std::max<int64_t>(options_.end_rounding, 1)) >= top) break;
      int64_t bytes = 0;
      bool movable = true;
      for (int32_t c : landed_on(plan, x)) {
        movable = movable && eligible_[static_cast<size_t>(c)];
        bytes += problem_.buffers[static_cast<size_t>(c)].size;
      }
      if (movable) spots.push_back({x, bytes});
    }
    std::stable_sort(spots.begin(), spots.end(),
                     [](const Spot& a, const Spot& c) { return a.landed_bytes < c.landed_bytes; });
    if (spots.size() > static_cast<size_t>(options_.spots_tried)) spots.resize(static_cast<size_t>(options_.spots_tried));
    for (const Spot& spot : spots) {
      Plan trial = plan;
      trial.offsets[b] = spot.offset;
      bool cleared = true;
      for (int32_t c : landed_on(trial, spot.offset)) {
        const std::vector<int32_t> hit = landed_on(trial, spot.offset);
        if (std::find(hit.begin(), hit.end(), c) == hit.end()) continue;  // moved off by an earlier window
        if (!repack(trial, window_around(c, buffer), top)) {
          cleared = false;
          break;
        }
      }
      // Cleared means no bytes shared at all (stricter than the pairs allow).
      if (cleared && landed_on(trial, spot.offset).empty()) {
        plan = std::move(trial);
        return true;
      }
    }
    return false;
  }

  int64_t end(const Plan& plan, size_t b) const {
    return plan.offsets[b] + align_up(problem_.buffers[b].size, std::max<int64_t>(options_.end_rounding, 1));
  }

  std::pair<int32_t, int32_t> times(size_t b) const {
    const Lifetime& l = problem_.buffers[b].lifetime;
    return {std::max(l.first, 0), std::min(l.last, problem_.op_count - 1)};
  }

  // The eligible buffers live around the time in `buffer`'s life with the
  // most live bytes (window_buffers), or `buffer` alone when they are too
  // many there; never `excluded`.
  std::vector<int32_t> window_around(int32_t buffer, int32_t excluded) const {
    const auto [first, last] = times(static_cast<size_t>(buffer));
    int32_t centre = first;
    for (int32_t t = first; t <= last && static_cast<size_t>(t) < live_.size(); ++t) {
      if (live_[static_cast<size_t>(t)] > live_[static_cast<size_t>(centre)]) centre = t;
    }
    return window_buffers(problem_, eligible_, centre, options_.max_buffers, excluded)
        .value_or(std::vector<int32_t>{buffer});
  }

  // Every other placed buffer live together with one of `movable`, where `plan` has it.
  std::vector<PlacedBuffer> around(const Plan& plan, const std::vector<int32_t>& movable) const {
    std::vector<char> moving(problem_.buffers.size(), 0);
    for (int32_t b : movable) moving[static_cast<size_t>(b)] = 1;
    std::vector<PlacedBuffer> staying;
    for (size_t c = 0; c < problem_.buffers.size(); ++c) {
      if (moving[c] || plan.offsets[c] < 0 || problem_.buffers[c].size == 0) continue;
      const Lifetime& life = problem_.buffers[c].lifetime;
      const bool together = std::any_of(movable.begin(), movable.end(), [&](int32_t b) {
        return problem_.buffers[static_cast<size_t>(b)].lifetime.intersects(life);
      });
      if (together) staying.push_back({static_cast<int32_t>(c), plan.offsets[c]});
    }
    return staying;
  }

  const MemoryProblem& problem_;
  const PeakRepairOptions& options_;
  std::vector<char> eligible_;
  std::vector<int64_t> live_;
  int64_t work_left_;  // of options_.work_budget
};

}  // namespace

Plan repair_peak(const MemoryProblem& problem, Plan plan, int64_t floor, const PeakRepairOptions& options) {
  if (plan.offsets.size() != problem.buffers.size() || problem.op_count <= 0) return plan;
  PeakRepairer repairer(problem, options);
  while (plan.arena_size > floor && !repairer.out_of_work()) {
    const int64_t top = plan.arena_size;
    Plan trial = plan;
    bool lowered = true;
    for (int32_t buffer : repairer.at_top(plan, top)) {
      if (!repairer.lower(trial, buffer, top)) {
        lowered = false;
        break;
      }
    }
    if (!lowered) break;
    trial.arena_size = rounded_arena_bytes(problem, trial, options.end_rounding);
    if (trial.arena_size >= top) break;
    trial.descending_ops = descending_ops(problem, trial);
    plan = std::move(trial);
  }
  return plan;
}

}  // namespace dmo

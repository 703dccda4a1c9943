#include "dmo/pipeline/stage_cover.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <utility>

namespace dmo {

namespace {

int64_t rounded(int64_t value, int64_t granule) {
  value = std::max<int64_t>(value, 0);
  return (value + granule - 1) / granule * granule;
}

constexpr int64_t kNoCover = std::numeric_limits<int64_t>::max();

// The shortest-path search over the op order, its stages bucketed by first
// op once, their peaks asked for as thresholds need them.
class CoverSearch {
 public:
  CoverSearch(const std::vector<int64_t>& need_per_op, const std::vector<CoverStage>& stages, const StagePeaks& peaks,
              int64_t max_extra_macs, int64_t granule)
      : stages_(stages),
        peaks_(peaks),
        max_extra_(max_extra_macs),
        granule_(std::max<int64_t>(granule, 1)),
        starting_(need_per_op.size()),
        ending_(need_per_op.size() + 1) {
    for (int64_t need : need_per_op) need_.push_back(rounded(need, granule_));
    peak_.resize(stages.size());
    for (const CoverStage& s : stages) floor_.push_back(rounded(s.peak_floor, granule_));
    in_range_.assign(stages.size(), 0);
    most_need_.assign(stages.size(), -1);
    for (size_t i = 0; i < stages.size(); ++i) {
      const CoverStage& s = stages[i];
      if (s.first_op < 0 || s.last_op < s.first_op || static_cast<size_t>(s.last_op) >= need_.size()) continue;
      in_range_[i] = 1;
      starting_[static_cast<size_t>(s.first_op)].push_back(i);
      ending_[static_cast<size_t>(s.last_op) + 1].push_back(i);
      for (int32_t op = s.first_op; op <= s.last_op; ++op) {
        most_need_[i] = std::max(most_need_[i], need_[static_cast<size_t>(op)]);
      }
    }
  }

  // The rounded needs, ascending, distinct.
  std::vector<int64_t> needs() const {
    std::vector<int64_t> values = need_;
    if (values.empty()) values.push_back(0);
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    return values;
  }

  // The rounded peaks known in (low, high).
  std::vector<int64_t> peaks_between(int64_t low, int64_t high) const {
    std::vector<int64_t> values;
    for (const std::optional<int64_t>& peak : peak_) {
      if (peak && *peak > low && *peak < high) values.push_back(*peak);
    }
    return values;
  }

  // What stage i is known to need: its rounded peak, or floor until then.
  int64_t need_at_least(size_t i) const { return peak_[i] ? *peak_[i] : floor_[i]; }

  // The values in (low, high) that need_at_least takes.
  std::vector<int64_t> needs_at_least_between(int64_t low, int64_t high) const {
    std::vector<int64_t> values;
    for (size_t i = 0; i < stages_.size(); ++i) {
      const int64_t value = need_at_least(i);
      if (value > low && value < high) values.push_back(value);
    }
    return values;
  }

  // The stages a cover at `threshold` may hold, peaks aside: those
  // containing an op whose need exceeds it (one elsewhere costs at least
  // what running its ops whole does, and adds a stage), and whose extra
  // MACs, with the least it takes to cover the ops above the threshold
  // before and after it whatever the peaks, fit the budget (no cover
  // within it holds another).
  std::vector<char> usable_at(int64_t threshold) const {
    const std::vector<int64_t> before = least_cover_cost(threshold, false);
    const std::vector<int64_t> after = least_cover_cost(threshold, true);
    std::vector<char> usable(stages_.size(), 0);
    for (size_t i = 0; i < stages_.size(); ++i) {
      if (most_need_[i] <= threshold || !in_range_[i]) continue;
      const int64_t outside_first = before[static_cast<size_t>(stages_[i].first_op)];
      const int64_t outside_last = after[static_cast<size_t>(stages_[i].last_op) + 1];
      if (outside_first == kNoCover || outside_last == kNoCover ||
          outside_first + outside_last + stages_[i].extra_macs > max_extra_) {
        continue;
      }
      usable[i] = 1;
    }
    return usable;
  }

  // Asks for the peaks of `stages` not known yet, all at once.
  void ask_peaks(const std::vector<size_t>& stages) {
    std::vector<size_t> asked;
    for (size_t i : stages) {
      if (!peak_[i]) asked.push_back(i);
    }
    if (asked.empty()) return;
    const std::vector<int64_t> found = peaks_(asked);
    for (size_t k = 0; k < asked.size(); ++k) peak_[asked[k]] = rounded(found[k], granule_);
  }

  // usable_at, with the peak of every stage it allows known.
  std::vector<char> ensure_peaks(int64_t threshold) {
    std::vector<char> usable = usable_at(threshold);
    std::vector<size_t> all;
    for (size_t i = 0; i < usable.size(); ++i) {
      if (usable[i]) all.push_back(i);
    }
    ask_peaks(all);
    return usable;
  }

  // The cheapest cover at `threshold` with every peak it may need known.
  std::optional<StageCover> cheapest(int64_t threshold) { return path(threshold, ensure_peaks(threshold)); }

  // The cheapest cover at `threshold` if it is within the budget, asking
  // only for the peaks of the covers tried: a stage whose peak is unknown
  // fits when its floor does (its peak is at least that), so the path
  // found costs at most the true cheapest. When its stages' peaks are all
  // known it is the true cheapest, the same path the search with every
  // peak known takes (that search has fewer stages to choose from, none
  // of them better on this path's way); otherwise their peaks are asked
  // for and it goes again. Each round learns a peak, and the first path
  // over the budget ends it: the true cheapest costs more.
  std::optional<StageCover> within_budget(int64_t threshold, const std::vector<char>& usable) {
    for (;;) {
      std::optional<StageCover> cover = path(threshold, usable);
      if (!cover || cover->extra_macs > max_extra_) return std::nullopt;
      if (!learn_peaks(*cover)) return cover;
    }
  }
  std::optional<StageCover> within_budget(int64_t threshold) { return within_budget(threshold, usable_at(threshold)); }

  // Asks for the peaks of `cover`'s stages not known yet; whether any was.
  bool learn_peaks(const StageCover& cover) {
    std::vector<size_t> unknown;
    for (size_t i : cover.stages) {
      if (!peak_[i]) unknown.push_back(i);
    }
    ask_peaks(unknown);
    return !unknown.empty();
  }

  // The shortest path at `threshold` through the `usable` stages whose
  // peak, or floor while it is unknown, does not exceed it.
  std::optional<StageCover> path(int64_t threshold, const std::vector<char>& usable) const {
    // Per op position: the least (extra MACs, stages) covering the ops
    // before it, and the step that got there (a stage, or none: the op
    // before it runs whole).
    using Cost = std::pair<int64_t, int64_t>;
    constexpr size_t kWhole = std::numeric_limits<size_t>::max();
    const size_t n = need_.size();
    std::vector<Cost> cost(n + 1, {kNoCover, 0});
    std::vector<std::pair<size_t, size_t>> from(n + 1, {0, kWhole});  // (previous position, stage)
    cost[0] = {0, 0};
    for (size_t op = 0; op < n; ++op) {
      if (cost[op].first == kNoCover) continue;
      if (need_[op] <= threshold && cost[op] < cost[op + 1]) {
        cost[op + 1] = cost[op];
        from[op + 1] = {op, kWhole};
      }
      for (size_t i : starting_[op]) {
        if (!usable[i] || need_at_least(i) > threshold) continue;
        const size_t end = static_cast<size_t>(stages_[i].last_op) + 1;
        const Cost via = {cost[op].first + stages_[i].extra_macs, cost[op].second + 1};
        if (via < cost[end]) {
          cost[end] = via;
          from[end] = {op, i};
        }
      }
    }
    if (cost[n].first == kNoCover) return std::nullopt;
    StageCover cover;
    cover.threshold = threshold;
    cover.extra_macs = cost[n].first;
    for (size_t at = n; at > 0; at = from[at].first) {
      if (from[at].second != kWhole) cover.stages.push_back(from[at].second);
    }
    std::reverse(cover.stages.begin(), cover.stages.end());
    return cover;
  }

  // Per op position, the least extra MACs covering the ops above
  // `threshold` before it (or, `from_end`, from it on), any stage allowed
  // whatever its peak: what the rest of a cover costs at least.
  std::vector<int64_t> least_cover_cost(int64_t threshold, bool from_end) const {
    const size_t n = need_.size();
    std::vector<int64_t> cost(n + 1, kNoCover);
    auto relax = [](int64_t& to, int64_t from, int64_t extra) {
      if (from != kNoCover) to = std::min(to, from + extra);
    };
    if (!from_end) {
      cost[0] = 0;
      for (size_t op = 0; op < n; ++op) {
        if (need_[op] <= threshold) relax(cost[op + 1], cost[op], 0);
        for (size_t i : starting_[op]) relax(cost[static_cast<size_t>(stages_[i].last_op) + 1], cost[op], stages_[i].extra_macs);
      }
    } else {
      cost[n] = 0;
      for (size_t end = n; end > 0; --end) {
        if (need_[end - 1] <= threshold) relax(cost[end - 1], cost[end], 0);
        for (size_t i : ending_[end]) relax(cost[static_cast<size_t>(stages_[i].first_op)], cost[end], stages_[i].extra_macs);
      }
    }
    return cost;
  }

  // The cheapest cover's extra MACs, kNoCover when none covers.
  int64_t extra_at(int64_t threshold) {
    const std::optional<StageCover> cover = cheapest(threshold);
    return cover ? cover->extra_macs : kNoCover;
  }

 private:
  const std::vector<CoverStage>& stages_;
  const StagePeaks& peaks_;
  int64_t max_extra_;
  int64_t granule_;
  std::vector<int64_t> need_;
  std::vector<std::optional<int64_t>> peak_;
  std::vector<int64_t> floor_;  // per stage, its rounded peak_floor
  std::vector<int64_t> most_need_;  // per stage, the largest rounded need of its ops
  std::vector<std::vector<size_t>> starting_, ending_;  // stages by first op, and by last op + 1
  std::vector<char> in_range_;  // per stage: its ops are ops of the problem
};

}  // namespace

StageCoverSearch search_stage_covers(const std::vector<int64_t>& need_per_op, const std::vector<CoverStage>& stages,
                                     const StagePeaks& peaks, int64_t max_extra_macs, int64_t granule, bool curve) {
  CoverSearch search(need_per_op, stages, peaks, max_extra_macs, granule);
  // First among the needs, from the largest down (met by the empty set):
  // each lower one learns the peaks of the covers it tries, and the first
  // one out of the budget ends it, before stages at ops far below the
  // answer are looked at.
  const std::vector<int64_t> needs = search.needs();
  size_t k = needs.size() - 1;
  std::optional<StageCover> at_need = search.within_budget(needs[k]);
  while (k > 0) {
    std::optional<StageCover> lower = search.within_budget(needs[k - 1]);
    if (!lower) break;
    at_need = std::move(lower);
    --k;
  }
  // The lowest threshold then lies above the need below the one found,
  // where the ops above a threshold, and so the stages a cover may hold,
  // are the same: only stage peaks move it. Taking each unknown peak to be
  // its floor, the lowest threshold (a known peak, a floor, or just above
  // that need) whose cheapest path is within the budget is at most the
  // true lowest: when that path's peaks are all known it is the answer,
  // with the cover the search with every peak known finds; otherwise they
  // are learnt, and again.
  const int64_t below = k == 0 ? -1 : needs[k - 1];
  const std::vector<char> usable = search.usable_at(below);
  auto fits = [&](int64_t threshold) {
    const std::optional<StageCover> cover = search.path(threshold, usable);
    return cover && cover->extra_macs <= max_extra_macs;
  };
  StageCoverSearch result;
  for (;;) {
    std::vector<int64_t> thresholds = search.needs_at_least_between(below, needs[k]);
    if (below + 1 < needs[k]) thresholds.push_back(below + 1);
    std::sort(thresholds.begin(), thresholds.end());
    thresholds.erase(std::unique(thresholds.begin(), thresholds.end()), thresholds.end());
    if (thresholds.empty() || !fits(thresholds.back())) {
      result.lowest = *at_need;
      break;
    }
    // Fitting only gets easier as the threshold rises.
    size_t low = 0, high = thresholds.size() - 1;
    while (low < high) {
      const size_t mid = low + (high - low) / 2;
      if (fits(thresholds[mid])) {
        high = mid;
      } else {
        low = mid + 1;
      }
    }
    StageCover cover = *search.path(thresholds[low], usable);
    if (!search.learn_peaks(cover)) {
      result.lowest = std::move(cover);
      break;
    }
  }
  if (!curve) return result;

  // The curve: where the cheapest cover's cost changes between the lowest
  // threshold and the largest need. Every peak that can move it is known
  // (the stages at ops above the lowest threshold). Each range whose ends
  // cost differently is bisected; one whose ends agree has no change inside.
  // (The ops above a threshold, and so which stages the budget allows,
  // change only at the needs: each one's peaks asked for first.)
  search.ensure_peaks(result.lowest.threshold);
  for (int64_t need : needs) {
    if (need > result.lowest.threshold) search.ensure_peaks(need);
  }
  std::vector<int64_t> above = search.peaks_between(result.lowest.threshold - 1, needs.back());
  for (int64_t need : needs) {
    if (need >= result.lowest.threshold) above.push_back(need);
  }
  std::sort(above.begin(), above.end());
  above.erase(std::unique(above.begin(), above.end()), above.end());
  std::vector<size_t> starts = {0};
  auto changes = [&](auto& self, size_t low, int64_t low_extra, size_t high, int64_t high_extra) -> void {
    if (low_extra == high_extra) return;
    if (high == low + 1) {
      starts.push_back(high);
      return;
    }
    const size_t mid = low + (high - low) / 2;
    const int64_t mid_extra = search.extra_at(above[mid]);
    self(self, low, low_extra, mid, mid_extra);
    self(self, mid, mid_extra, high, high_extra);
  };
  const size_t last = above.size() - 1;
  changes(changes, 0, result.lowest.extra_macs, last, search.extra_at(above[last]));
  std::sort(starts.rbegin(), starts.rend());
  for (size_t start : starts) result.curve.push_back(*search.cheapest(above[start]));
  return result;
}

}  // namespace dmo

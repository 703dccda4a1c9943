#include "dmo/plan/window_bound.h"

#include <algorithm>
#include <limits>

#include "dmo/plan/alias_groups.h"
#include "dmo/plan/bounds.h"
#include "dmo/plan/plan.h"

namespace dmo {

namespace {

constexpr int64_t kNone = std::numeric_limits<int64_t>::max();

// The depth-first branch and bound over normal-form lists (header comment).
class ExactPacker {
 public:
  ExactPacker(const MemoryProblem& problem, std::span<const int32_t> buffers, const ExactPackingOptions& options)
      : n_(buffers.size()), options_(options) {
    size_.resize(n_);
    counted_.resize(n_);
    life_.resize(n_);
    for (size_t k = 0; k < n_; ++k) {
      const BufferRequest& b = problem.buffers[static_cast<size_t>(buffers[k])];
      size_[k] = b.size;
      counted_[k] = align_up(b.size, options.end_rounding);
      life_[k] = b.lifetime;
    }
    // up_[c * n + b]: least distance of b's start above c's; kNone: no conflict.
    up_.assign(n_ * n_, kNone);
    overlap_.assign(n_ * n_, 0);
    for (size_t c = 0; c < n_; ++c) {
      for (size_t b = 0; b < n_; ++b) {
        if (b != c && life_[b].intersects(life_[c])) up_[c * n_ + b] = size_[c];
      }
    }
    std::vector<int32_t> index_of(problem.buffers.size(), -1);
    for (size_t k = 0; k < n_; ++k) index_of[static_cast<size_t>(buffers[k])] = static_cast<int32_t>(k);
    for (const OverlapPair& pair : problem.overlaps) {
      const int32_t o = index_of[static_cast<size_t>(pair.output_buffer)];
      const int32_t i = index_of[static_cast<size_t>(pair.input_buffer)];
      if (o < 0 || i < 0 || o == i) continue;
      const auto out = static_cast<size_t>(o), in = static_cast<size_t>(i);
      if (up_[out * n_ + in] == kNone) continue;  // never live together
      if (pair.safe_overlap > 0) up_[out * n_ + in] = std::min(up_[out * n_ + in], size_[out] - pair.safe_overlap);
      if (pair.safe_overlap_descending > 0) {
        up_[in * n_ + out] = std::min(up_[in * n_ + out], size_[in] - pair.safe_overlap_descending);
      }
    }
    // The most bytes two buffers may share: the deepest either may reach
    // into the other, its distance above rounded up to the offsets' lattice.
    for (size_t c = 0; c < n_; ++c) {
      for (size_t b = c + 1; b < n_; ++b) {
        if (up_[c * n_ + b] == kNone) continue;
        const int64_t shared = std::max(size_[c] - align_up(up_[c * n_ + b], options.alignment),
                                        size_[b] - align_up(up_[b * n_ + c], options.alignment));
        overlap_[c * n_ + b] = overlap_[b * n_ + c] = std::max<int64_t>(0, std::min({shared, size_[b], size_[c]}));
      }
    }
    // The sharpest capacity checks are at the buffers' first times (where
    // an interval graph's cliques are).
    for (size_t k = 0; k < n_; ++k) times_.push_back(life_[k].first);
    std::sort(times_.begin(), times_.end());
    times_.erase(std::unique(times_.begin(), times_.end()), times_.end());
    offset_.assign(n_, -1);
    best_ = options.ceiling.value_or(kNone);
  }

  // Whether the search finished within the budget; best() is then the optimum (capped).
  bool run() {
    State start;
    search(start, 0);
    return nodes_ <= options_.node_budget;
  }
  int64_t best() const { return best_; }
  int64_t nodes() const { return nodes_; }

 private:
  struct State {
    int64_t level = 0;          // offset of the last buffer placed; later ones are at or above it
    int32_t last_root = -1;     // the last root placed at `level`
    bool non_root_at_level = false;
    int64_t top = 0;            // highest counted end so far
  };
  struct Child {
    int64_t offset;
    int32_t buffer;
    bool root;
  };

  int64_t up(size_t c, size_t b) const { return up_[c * n_ + b]; }

  bool feasible(size_t b, int64_t x) const {
    for (size_t c = 0; c < n_; ++c) {
      if (offset_[c] < 0 || up(c, b) == kNone) continue;
      const int64_t d = x - offset_[c];
      if (!(d >= up(c, b) || d <= -up(b, c))) return false;
    }
    return true;
  }

  // Whether the unplaced buffers can still fit below best_ at every
  // checked time: they lie in [level, best_) less the bytes placed buffers
  // hold there, and share at most their pairs' overlaps.
  bool room_left(int64_t level) const {
    std::vector<std::pair<int64_t, int64_t>> spans;
    for (int32_t t : times_) {
      int64_t need = 0;
      bool any = false;
      spans.clear();
      for (size_t k = 0; k < n_; ++k) {
        if (!life_[k].covers(t)) continue;
        if (offset_[k] < 0) {
          need += size_[k];
          any = true;
        } else if (offset_[k] + size_[k] > level) {
          spans.emplace_back(std::max(offset_[k], level), offset_[k] + size_[k]);
        }
      }
      if (!any) continue;
      for (size_t k = 0; k < n_; ++k) {
        if (offset_[k] >= 0 || !life_[k].covers(t)) continue;
        for (size_t j = 0; j < n_; ++j) {
          if (j == k || !life_[j].covers(t)) continue;
          if (offset_[j] >= 0 || j > k) need -= overlap_[k * n_ + j];  // each unplaced pair once
        }
      }
      std::sort(spans.begin(), spans.end());
      int64_t held = 0, covered_to = level;
      for (const auto& [from, to] : spans) {
        const int64_t start = std::max(from, covered_to);
        if (to > start) held += to - start;
        covered_to = std::max(covered_to, to);
      }
      if (need > best_ - 1 - level - held) return false;  // every end below best_
    }
    return true;
  }

  void search(const State& state, size_t placed) {
    if (++nodes_ > options_.node_budget) return;
    if (placed == n_) {
      best_ = std::min(best_, state.top);
      return;
    }
    if (best_ != kNone && !room_left(state.level)) return;
    std::vector<Child> children;
    for (size_t b = 0; b < n_; ++b) {
      if (offset_[b] >= 0) continue;
      auto consider = [&](int64_t x, bool root) {
        if (x < state.level) return;
        if (x == state.level && root && (state.non_root_at_level || static_cast<int32_t>(b) < state.last_root)) {
          return;
        }
        if (best_ != kNone && x + counted_[b] >= best_) return;
        children.push_back({x, static_cast<int32_t>(b), root});
      };
      consider(0, true);
      for (size_t c = 0; c < n_; ++c) {
        if (offset_[c] < 0 || up(c, b) == kNone) continue;
        const int64_t x = offset_[c] + align_up(up(c, b), options_.alignment);
        consider(x, offset_[c] < x);
      }
    }
    // Lowest first: the first leaf is a bottom-left packing. Duplicates
    // (one offset from several supports) are searched once, as a root when
    // any support makes it one.
    std::sort(children.begin(), children.end(), [](const Child& a, const Child& b) {
      if (a.offset != b.offset) return a.offset < b.offset;
      if (a.buffer != b.buffer) return a.buffer < b.buffer;
      return a.root > b.root;
    });
    for (size_t k = 0; k < children.size(); ++k) {
      const Child& child = children[k];
      if (k > 0 && children[k - 1].offset == child.offset && children[k - 1].buffer == child.buffer) continue;
      if (nodes_ > options_.node_budget) return;
      const auto b = static_cast<size_t>(child.buffer);
      if (best_ != kNone && child.offset + counted_[b] >= best_) continue;
      if (!feasible(b, child.offset)) continue;
      State next;
      next.level = child.offset;
      next.top = std::max(state.top, child.offset + counted_[b]);
      if (placed == 0 || child.offset > state.level) {
        next.last_root = child.buffer;  // the first at a new offset: a root
      } else if (child.root && !state.non_root_at_level && child.buffer > state.last_root) {
        next.last_root = child.buffer;
      } else {  // on a support at this offset
        next.last_root = state.last_root;
        next.non_root_at_level = true;
      }
      offset_[b] = child.offset;
      search(next, placed + 1);
      offset_[b] = -1;
    }
  }

  size_t n_;
  const ExactPackingOptions& options_;
  std::vector<int64_t> size_, counted_;
  std::vector<Lifetime> life_;
  std::vector<int64_t> up_, overlap_;
  std::vector<int32_t> times_;
  std::vector<int64_t> offset_;
  int64_t best_ = kNone;
  int64_t nodes_ = 0;
};

}  // namespace

std::optional<int64_t> exact_subset_arena_bytes(const MemoryProblem& problem, std::span<const int32_t> buffers,
                                                const ExactPackingOptions& options, int64_t* nodes) {
  if (buffers.empty()) return 0;
  ExactPacker packer(problem, buffers, options);
  const bool finished = packer.run();
  if (nodes) *nodes = packer.nodes();
  if (!finished || packer.best() == kNone) return std::nullopt;
  return packer.best();
}

std::vector<char> window_eligible_buffers(const MemoryProblem& problem, int64_t alignment) {
  const AliasGroups groups(problem);
  std::vector<char> eligible(problem.buffers.size(), 0);
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    const BufferRequest& b = problem.buffers[i];
    const auto id = static_cast<int32_t>(i);
    eligible[i] = b.size > 0 && !b.fixed_offset && groups.members(groups.root(id)).size() == 1 &&
                  (b.alignment == 0 || b.alignment % alignment == 0);
  }
  for (const OverlapPair& pair : problem.overlaps) {
    const BufferRequest& out = problem.buffers[static_cast<size_t>(pair.output_buffer)];
    const BufferRequest& in = problem.buffers[static_cast<size_t>(pair.input_buffer)];
    if (pair.safe_overlap > out.size || pair.safe_overlap_descending > in.size) {
      eligible[static_cast<size_t>(pair.output_buffer)] = 0;
      eligible[static_cast<size_t>(pair.input_buffer)] = 0;
    }
  }
  return eligible;
}

int64_t peak_window_lower_bound_bytes(const MemoryProblem& problem, const WindowBoundOptions& options) {
  if (problem.op_count <= 0 || problem.buffers.empty()) return 0;
  const std::vector<char> eligible = window_eligible_buffers(problem, options.packing.alignment);
  const std::vector<int64_t> live = live_bytes_per_op(problem);
  // Eligible buffers by first and by last time, to grow windows a time at a time.
  auto covered = [&](size_t b) {
    const Lifetime& l = problem.buffers[b].lifetime;
    return std::make_pair(std::max(l.first, 0), std::min(l.last, problem.op_count - 1));
  };
  std::vector<int32_t> centres(live.size());
  for (size_t t = 0; t < live.size(); ++t) centres[t] = static_cast<int32_t>(t);
  std::stable_sort(centres.begin(), centres.end(),
                   [&](int32_t a, int32_t b) { return live[static_cast<size_t>(a)] > live[static_cast<size_t>(b)]; });
  int64_t bound = 0;
  int32_t tried = 0;
  std::vector<int32_t> window;
  for (int32_t centre : centres) {
    // A centre whose own buffers are too many counts as tried too: on a
    // large graph with no small peak the scan stays short.
    if (tried++ >= options.max_windows) break;
    // The buffers live in [lo, hi]: counted once per window.
    auto members = [&](int32_t lo, int32_t hi) {
      std::vector<int32_t> in;
      for (size_t b = 0; b < problem.buffers.size(); ++b) {
        if (!eligible[b]) continue;
        const auto [first, last] = covered(b);
        if (first <= hi && last >= lo) in.push_back(static_cast<int32_t>(b));
      }
      return in;
    };
    int32_t lo = centre, hi = centre;
    window = members(lo, hi);
    if (static_cast<int32_t>(window.size()) > options.max_buffers) continue;
    // Grow on the side that adds fewer buffers, while the window stays small.
    for (;;) {
      std::vector<int32_t> left, right;
      if (lo > 0) left = members(lo - 1, hi);
      if (hi + 1 < problem.op_count) right = members(lo, hi + 1);
      const bool left_ok = lo > 0 && static_cast<int32_t>(left.size()) <= options.max_buffers;
      const bool right_ok = hi + 1 < problem.op_count && static_cast<int32_t>(right.size()) <= options.max_buffers;
      if (!left_ok && !right_ok) break;
      if (left_ok && (!right_ok || left.size() <= right.size())) {
        --lo;
        window = std::move(left);
      } else {
        ++hi;
        window = std::move(right);
      }
    }
    if (std::optional<int64_t> packed = exact_subset_arena_bytes(problem, window, options.packing)) {
      bound = std::max(bound, *packed);
      if (options.packing.ceiling && bound >= *options.packing.ceiling) break;
    }
  }
  return bound;
}

}  // namespace dmo

#include "dmo/plan/exact_packing.h"

#include <algorithm>
#include <limits>
#include <optional>

#include "dmo/plan/alias_groups.h"
#include "dmo/plan/bounds.h"
#include "dmo/plan/plan.h"

namespace dmo {

namespace {

constexpr int64_t kNone = std::numeric_limits<int64_t>::max();

// The depth-first branch and bound over normal-form lists (header comment).
class ExactPacker {
 public:
  // `buffers`: the movable ones first, then `fixed` (their offsets, in order).
  // `descending_ops`: nullptr for either side on every pair.
  ExactPacker(const MemoryProblem& problem, std::span<const int32_t> buffers, std::span<const int64_t> fixed,
              const std::vector<char>* descending_ops, const ExactPackingOptions& options)
      : n_(buffers.size()), movable_(buffers.size() - fixed.size()), options_(options) {
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
      const bool descending = descending_ops && static_cast<size_t>(pair.op) < descending_ops->size() &&
                              (*descending_ops)[static_cast<size_t>(pair.op)];
      const bool ascending = !descending_ops || !descending;
      if (ascending && pair.safe_overlap > 0) {
        up_[out * n_ + in] = std::min(up_[out * n_ + in], size_[out] - pair.safe_overlap);
      }
      if ((!descending_ops || descending) && pair.safe_overlap_descending > 0) {
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
    // Only where a buffer to pack starts: elsewhere the placed ones alone
    // are live, or the same check is made at a start (fewer checks prune
    // less, never wrongly).
    std::vector<int32_t> times;
    for (size_t k = 0; k < movable_; ++k) times.push_back(life_[k].first);
    std::sort(times.begin(), times.end());
    times.erase(std::unique(times.begin(), times.end()), times.end());
    // Per checked time, the buffers live then: a node's check walks those
    // rather than every buffer around the window.
    for (int32_t t : times) {
      std::vector<int32_t> live;
      for (size_t k = 0; k < n_; ++k) {
        if (life_[k].covers(t)) live.push_back(static_cast<int32_t>(k));
      }
      live_at_.push_back(std::move(live));
    }
    offset_.assign(n_, -1);
    for (size_t k = 0; k < fixed.size(); ++k) {
      offset_[movable_ + k] = fixed[k];
      fixed_top_ = std::max(fixed_top_, fixed[k] + counted_[movable_ + k]);
    }
    best_ = options.ceiling.value_or(kNone);
  }

  // Whether the search finished within the budget; best() is then the optimum (capped).
  bool run() {
    State start;
    start.top = fixed_top_;
    search(start, 0);
    return nodes_ <= options_.node_budget;
  }
  int64_t best() const { return best_; }
  // The movable buffers' offsets in the best packing found; empty if none.
  const std::vector<int64_t>& best_offsets() const { return best_offsets_; }
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
    for (const std::vector<int32_t>& live : live_at_) {
      int64_t need = 0;
      bool any = false;
      spans.clear();
      for (int32_t i : live) {
        const auto k = static_cast<size_t>(i);
        if (offset_[k] < 0) {
          need += size_[k];
          any = true;
        } else if (offset_[k] + size_[k] > level) {
          spans.emplace_back(std::max(offset_[k], level), offset_[k] + size_[k]);
        }
      }
      if (!any) continue;
      for (int32_t i : live) {
        const auto k = static_cast<size_t>(i);
        if (offset_[k] >= 0) continue;
        for (int32_t l : live) {
          const auto j = static_cast<size_t>(l);
          if (j == k) continue;
          if (offset_[j] >= 0 || j > k) need -= overlap_[k * n_ + j];  // each unplaced pair once
        }
      }
      const int64_t held = union_bytes(spans);  // the spans start at `level` or above
      if (need > best_ - 1 - level - held) return false;  // every end below best_
    }
    return true;
  }

  void search(const State& state, size_t placed) {
    if (done_ || ++nodes_ > options_.node_budget) return;
    if (placed == movable_) {
      if (state.top < best_) {
        best_ = state.top;
        best_offsets_.assign(offset_.begin(), offset_.begin() + static_cast<std::ptrdiff_t>(movable_));
      }
      // Nothing is below the buffers that stay, or this one is good enough:
      // the search is over.
      if (best_ <= fixed_top_ || (options_.good_enough && best_ <= *options_.good_enough)) done_ = true;
      return;
    }
    if (best_ != kNone && !room_left(state.level)) return;
    std::vector<Child> children;
    for (size_t b = 0; b < movable_; ++b) {
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
        consider(x, offset_[c] < x || c >= movable_);  // a buffer that stays needs no listing
      }
    }
    // Lowest first: the first leaf is a bottom-left packing. Duplicates
    // (one offset from several supports) are searched once, as a root when
    // any support makes it one. Taken from a heap in that order: a search
    // out of budget visits few of a node's children, so sorting them all
    // would cost most of its time.
    const auto after = [](const Child& a, const Child& b) {
      if (a.offset != b.offset) return a.offset > b.offset;
      if (a.buffer != b.buffer) return a.buffer > b.buffer;
      return a.root < b.root;
    };
    std::make_heap(children.begin(), children.end(), after);
    std::optional<Child> previous;
    for (auto end = children.end(); end != children.begin(); --end) {
      std::pop_heap(children.begin(), end, after);
      const Child child = *(end - 1);
      const bool repeated = previous && previous->offset == child.offset && previous->buffer == child.buffer;
      previous = child;
      if (repeated) continue;
      if (done_ || nodes_ > options_.node_budget) return;
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
  size_t movable_;  // buffers [0, movable_) are packed, the rest stay
  const ExactPackingOptions& options_;
  std::vector<int64_t> size_, counted_;
  std::vector<Lifetime> life_;
  std::vector<int64_t> up_, overlap_;
  // Per time where a buffer to pack starts, the buffers live then.
  std::vector<std::vector<int32_t>> live_at_;
  std::vector<int64_t> offset_;
  int64_t best_ = kNone;
  std::vector<int64_t> best_offsets_;
  int64_t fixed_top_ = 0;
  int64_t nodes_ = 0;
  bool done_ = false;  // a packing that cannot or need not be beaten was found
};

}  // namespace

std::optional<int64_t> exact_subset_arena_bytes(const MemoryProblem& problem, std::span<const int32_t> buffers,
                                                const ExactPackingOptions& options, int64_t* nodes) {
  if (buffers.empty()) return 0;
  ExactPacker packer(problem, buffers, {}, nullptr, options);
  const bool finished = packer.run();
  if (nodes) *nodes = packer.nodes();
  if (!finished || packer.best() == kNone) return std::nullopt;
  return packer.best();
}

std::optional<std::vector<int64_t>> exact_packing_around(const MemoryProblem& problem,
                                                         std::span<const int32_t> movable,
                                                         std::span<const PlacedBuffer> fixed,
                                                         std::span<const int32_t> descending_ops,
                                                         const ExactPackingOptions& options, int64_t* nodes) {
  std::vector<int32_t> buffers(movable.begin(), movable.end());
  std::vector<int64_t> offsets;
  for (const PlacedBuffer& f : fixed) {
    buffers.push_back(f.buffer);
    offsets.push_back(f.offset);
  }
  std::vector<char> descending(static_cast<size_t>(std::max(problem.op_count, 0)), 0);
  for (int32_t op : descending_ops) {
    if (op >= 0 && op < problem.op_count) descending[static_cast<size_t>(op)] = 1;
  }
  ExactPacker packer(problem, buffers, offsets, &descending, options);
  packer.run();
  if (nodes) *nodes = packer.nodes();
  // Out of budget, the best packing found is still a valid one.
  if (packer.best_offsets().empty()) return std::nullopt;
  return packer.best_offsets();
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

std::vector<char> movable_buffers(const MemoryProblem& problem, int64_t alignment) {
  std::vector<char> movable = window_eligible_buffers(problem, alignment);
  for (size_t b = 0; b < problem.buffers.size(); ++b) {
    if (alignment % alignment_of(problem.buffers[b], alignment) != 0) movable[b] = 0;
  }
  return movable;
}

std::optional<std::vector<int32_t>> window_buffers(const MemoryProblem& problem, const std::vector<char>& eligible,
                                                   int32_t centre, int32_t max_buffers, int32_t excluded) {
  // The buffers live in [lo, hi].
  auto members = [&](int32_t lo, int32_t hi) {
    std::vector<int32_t> in;
    for (size_t b = 0; b < problem.buffers.size(); ++b) {
      if (!eligible[b] || static_cast<int32_t>(b) == excluded) continue;
      const Lifetime& l = problem.buffers[b].lifetime;
      if (std::max(l.first, 0) <= hi && std::min(l.last, problem.op_count - 1) >= lo) {
        in.push_back(static_cast<int32_t>(b));
      }
    }
    return in;
  };
  int32_t lo = centre, hi = centre;
  std::vector<int32_t> window = members(lo, hi);
  if (static_cast<int32_t>(window.size()) > max_buffers) return std::nullopt;
  for (;;) {
    std::vector<int32_t> left, right;
    const bool can_left = lo > 0, can_right = hi + 1 < problem.op_count;
    if (can_left) left = members(lo - 1, hi);
    if (can_right) right = members(lo, hi + 1);
    const bool left_ok = can_left && static_cast<int32_t>(left.size()) <= max_buffers;
    const bool right_ok = can_right && static_cast<int32_t>(right.size()) <= max_buffers;
    if (!left_ok && !right_ok) break;
    if (left_ok && (!right_ok || left.size() <= right.size())) {
      --lo;
      window = std::move(left);
    } else {
      ++hi;
      window = std::move(right);
    }
  }
  return window;
}

}  // namespace dmo

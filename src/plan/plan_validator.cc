#include "dmo/plan/plan_validator.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "dmo/error.h"
#include "dmo/plan/alias_groups.h"
#include "dmo/plan/live_together.h"

namespace dmo {

std::vector<std::string> validate_plan(const MemoryProblem& problem, const Plan& plan, int64_t alignment) {
  std::vector<std::string> errors;
  const size_t n = problem.buffers.size();
  if (plan.offsets.size() != n) {
    errors.push_back(fmt::format("plan has {} offsets for {} buffers", plan.offsets.size(), n));
    return errors;
  }
  std::optional<AliasGroups> groups;
  try {
    groups.emplace(problem);
  } catch (const Error& e) {
    errors.push_back(e.what());
    return errors;
  }
  // Overlap pairs keyed by (output buffer, input buffer); an op may have several.
  std::multimap<std::pair<size_t, size_t>, const OverlapPair*> allowed;
  for (const OverlapPair& pair : problem.overlaps) {
    allowed.insert({{static_cast<size_t>(pair.output_buffer), static_cast<size_t>(pair.input_buffer)}, &pair});
  }
  std::set<int32_t> descending(plan.descending_ops.begin(), plan.descending_ops.end());
  auto fixed_by_problem = [&](size_t i) { return groups->fixed_root_offset(groups->root(static_cast<int32_t>(i))).has_value(); };
  int64_t max_end = 0;
  for (size_t i = 0; i < n; ++i) {
    const BufferRequest& b = problem.buffers[i];
    if (plan.offsets[i] < 0) errors.push_back(fmt::format("tensor {} has negative offset {}", b.tensor, plan.offsets[i]));
    // The default alignment binds where the planner chose the place.
    const bool chosen = groups->is_root(static_cast<int32_t>(i)) && !b.fixed_offset;
    const int64_t required = b.alignment > 0 ? b.alignment : chosen ? alignment : 1;
    if (required > 1 && plan.offsets[i] % required != 0) {
      errors.push_back(fmt::format("tensor {} offset {} is not a multiple of {}", b.tensor, plan.offsets[i], required));
    }
    if (b.fixed_offset && plan.offsets[i] != *b.fixed_offset) {
      errors.push_back(fmt::format("tensor {} is at offset {}, not at its fixed offset {}", b.tensor, plan.offsets[i],
                                   *b.fixed_offset));
    }
    max_end = std::max(max_end, plan.offsets[i] + b.size);
  }
  for (const BufferAlias& alias : problem.aliases) {
    const int64_t want = plan.offsets[static_cast<size_t>(alias.base)] + alias.offset;
    if (plan.offsets[static_cast<size_t>(alias.buffer)] != want) {
      errors.push_back(fmt::format("tensor {} is at offset {}, not at its base tensor {}'s offset plus {} ({})",
                                   problem.buffers[static_cast<size_t>(alias.buffer)].tensor,
                                   plan.offsets[static_cast<size_t>(alias.buffer)],
                                   problem.buffers[static_cast<size_t>(alias.base)].tensor, alias.offset, want));
    }
  }
  if (plan.arena_size < max_end) {
    errors.push_back(fmt::format("arena size {} is below the highest buffer end {}", plan.arena_size, max_end));
  }
  // Only buffers live together can collide: each such pair once, the one
  // lower in offset order first, and the findings in offset order.
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return plan.offsets[a] < plan.offsets[b]; });
  std::vector<size_t> rank(n);
  for (size_t x = 0; x < n; ++x) rank[order[x]] = x;
  const std::vector<std::vector<int32_t>> together = buffers_live_together(problem);
  std::vector<std::pair<size_t, size_t>> touching;  // (a, b) by rank, a below b
  for (size_t a = 0; a < n; ++a) {
    for (int32_t other : together[a]) {
      const auto b = static_cast<size_t>(other);
      if (rank[b] > rank[a] && plan.offsets[b] < plan.offsets[a] + problem.buffers[a].size) touching.emplace_back(a, b);
    }
  }
  std::sort(touching.begin(), touching.end(), [&](const auto& x, const auto& y) {
    return rank[x.first] != rank[y.first] ? rank[x.first] < rank[y.first] : rank[x.second] < rank[y.second];
  });
  for (const auto& [a, b] : touching) {
    const int64_t a_end = plan.offsets[a] + problem.buffers[a].size;
    if (groups->same_group(static_cast<int32_t>(a), static_cast<int32_t>(b))) continue;
    if (fixed_by_problem(a) && fixed_by_problem(b)) continue;
    int64_t shared = a_end - plan.offsets[b];
    // An output may sit below its dying input when the input starts at
    // least |O| - O_s above it and the op walks ascending: every later
    // read is then above every write. Mirrored for an op walking
    // descending: the output starts at least |I| - O_s_descending above
    // the input.
    auto allowed_by = [&](size_t out, size_t in, const OverlapPair& pair) {
      if (descending.count(pair.op)) {
        return pair.safe_overlap_descending > 0 &&
               plan.offsets[out] - plan.offsets[in] >= problem.buffers[in].size - pair.safe_overlap_descending;
      }
      return plan.offsets[in] - plan.offsets[out] >= problem.buffers[out].size - pair.safe_overlap;
    };
    auto allowed_as = [&](size_t out, size_t in) {
      auto [first, last] = allowed.equal_range({out, in});
      return std::any_of(first, last, [&](const auto& entry) { return allowed_by(out, in, *entry.second); });
    };
    if (allowed_as(a, b) || allowed_as(b, a)) continue;
    errors.push_back(fmt::format("tensors {} [{}, {}) and {} [{}, {}) are live together and share {} bytes",
                                 problem.buffers[a].tensor, plan.offsets[a], a_end, problem.buffers[b].tensor,
                                 plan.offsets[b], plan.offsets[b] + problem.buffers[b].size, shared));
  }
  return errors;
}

}  // namespace dmo

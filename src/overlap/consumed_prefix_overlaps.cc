#include "dmo/overlap/consumed_prefix_overlaps.h"

#include <algorithm>
#include <limits>
#include <map>
#include <utility>

#include "dmo/plan/buffers_by_tensor.h"
#include "dmo/schedule/consumed_prefix.h"

namespace dmo {

namespace {

bool contains(const std::vector<int32_t>& tensors, int32_t t) {
  return std::find(tensors.begin(), tensors.end(), t) != tensors.end();
}

}  // namespace

void add_consumed_prefix_pairs(const Graph& graph, const Schedule& schedule, MemoryProblem& problem,
                               bool preserve_graph_inputs, int64_t alignment) {
  const std::vector<ConsumedPrefix> consumed_tensors = consumed_prefixes(graph, schedule);
  if (consumed_tensors.empty()) return;
  const Subgraph& sg = graph.main();
  const std::vector<int32_t> buffer_of = buffers_by_tensor(problem, sg.tensors.size());
  const int64_t align = std::max<int64_t>(alignment, 1);
  // A pair (output, input) may exist already (a slice's own): it is
  // raised, not repeated. Pairs at or past `first_new` are this function's.
  std::map<std::pair<int32_t, int32_t>, size_t> pair_at;
  for (size_t p = 0; p < problem.overlaps.size(); ++p) {
    pair_at.emplace(std::pair{problem.overlaps[p].output_buffer, problem.overlaps[p].input_buffer}, p);
  }
  const size_t first_new = problem.overlaps.size();
  auto allow = [&](int32_t op, int32_t out, int32_t in, int64_t bytes) {
    const auto [at, fresh] = pair_at.emplace(std::pair{out, in}, problem.overlaps.size());
    if (fresh) {
      problem.overlaps.push_back({op, out, in, bytes, 0});
    } else {
      problem.overlaps[at->second].safe_overlap = std::max(problem.overlaps[at->second].safe_overlap, bytes);
    }
  };
  for (const ConsumedPrefix& consumed : consumed_tensors) {
    const int32_t bx = buffer_of[static_cast<size_t>(consumed.tensor)];
    if (bx < 0 || (preserve_graph_inputs && contains(sg.inputs, consumed.tensor))) continue;
    const std::vector<int64_t>& dead = consumed.dead_bytes;
    const Lifetime life = problem.buffers[static_cast<size_t>(bx)].lifetime;
    for (size_t b = 0; b < problem.buffers.size(); ++b) {
      const BufferRequest& t = problem.buffers[b];
      if (static_cast<int32_t>(b) == bx || t.tensor == kNoTensor || t.size == 0) continue;
      const int32_t born = t.lifetime.first;
      if (born <= life.first || born > life.last || static_cast<size_t>(born) + 1 >= dead.size()) continue;
      const int64_t prefix = dead[static_cast<size_t>(born)] / align * align;
      if (prefix <= 0 || prefix == std::numeric_limits<int64_t>::max() / align * align) continue;
      allow(consumed.first_slice_op, static_cast<int32_t>(b), bx, prefix);
    }
  }
  // A view's base: where every one of its views may sit, the base may.
  std::vector<int32_t> bases_done;
  for (const BufferAlias& alias : problem.aliases) {
    const int32_t base = alias.base;
    if (contains(bases_done, base)) continue;
    bases_done.push_back(base);
    // Per X: the least room over the base's views, all of which must pair with X.
    std::vector<int32_t> inputs;
    for (size_t p = first_new; p < problem.overlaps.size(); ++p) {
      const OverlapPair& pair = problem.overlaps[p];
      if (pair.output_buffer == alias.buffer && !contains(inputs, pair.input_buffer)) inputs.push_back(pair.input_buffer);
    }
    for (int32_t in : inputs) {
      int64_t covered = 0, need = 0;
      int32_t op = -1;
      bool all = true;
      for (const BufferAlias& member : problem.aliases) {
        if (member.base != base) continue;
        const auto pair = pair_at.find({member.buffer, in});
        if (pair == pair_at.end() || pair->second < first_new) {
          all = false;
          break;
        }
        const OverlapPair& allowed = problem.overlaps[pair->second];
        const int64_t size = problem.buffers[static_cast<size_t>(member.buffer)].size;
        covered += size;
        need = std::max(need, member.offset + size - allowed.safe_overlap);
        op = allowed.op;
      }
      const int64_t base_size = problem.buffers[static_cast<size_t>(base)].size;
      if (!all || covered != base_size) continue;
      const int64_t room = (base_size - need) / align * align;
      if (room > 0) allow(op, base, in, room);
    }
  }
}

}  // namespace dmo

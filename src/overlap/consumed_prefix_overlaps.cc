#include "dmo/overlap/consumed_prefix_overlaps.h"

#include <algorithm>
#include <limits>

#include "dmo/schedule/consumed_prefix.h"

namespace dmo {

namespace {

bool contains(const std::vector<int32_t>& tensors, int32_t t) {
  return std::find(tensors.begin(), tensors.end(), t) != tensors.end();
}

}  // namespace

void add_consumed_prefix_pairs(const Graph& graph, const Schedule& schedule, MemoryProblem& problem,
                               bool preserve_graph_inputs, int64_t alignment) {
  if (!schedule.stages.empty() || graph.subgraphs.size() > 1) return;
  const Subgraph& sg = graph.main();
  std::vector<int32_t> buffer_of(sg.tensors.size(), -1);
  for (size_t b = 0; b < problem.buffers.size(); ++b) {
    const int32_t t = problem.buffers[b].tensor;
    if (t >= 0 && static_cast<size_t>(t) < buffer_of.size()) buffer_of[static_cast<size_t>(t)] = static_cast<int32_t>(b);
  }
  const int64_t align = std::max<int64_t>(alignment, 1);
  const size_t first_new = problem.overlaps.size();
  for (const ConsumedPrefix& consumed : consumed_prefixes(graph, schedule)) {
    const int32_t bx = buffer_of[static_cast<size_t>(consumed.tensor)];
    if (bx < 0 || (preserve_graph_inputs && contains(sg.inputs, consumed.tensor))) continue;
    const std::vector<int64_t>& dead = consumed.dead_bytes;
    const int32_t first_slice = consumed.first_slice_op;
    const Lifetime life = problem.buffers[static_cast<size_t>(bx)].lifetime;
    for (size_t b = 0; b < problem.buffers.size(); ++b) {
      const BufferRequest& t = problem.buffers[b];
      if (static_cast<int32_t>(b) == bx || t.tensor == kNoTensor || t.size == 0) continue;
      const int32_t born = t.lifetime.first;
      if (born <= life.first || born > life.last || static_cast<size_t>(born) + 1 >= dead.size()) continue;
      const int64_t prefix = dead[static_cast<size_t>(born)] / align * align;
      if (prefix <= 0 || prefix == std::numeric_limits<int64_t>::max() / align * align) continue;
      auto existing = std::find_if(problem.overlaps.begin(), problem.overlaps.end(), [&](const OverlapPair& p) {
        return p.output_buffer == static_cast<int32_t>(b) && p.input_buffer == bx;
      });
      if (existing != problem.overlaps.end()) {
        existing->safe_overlap = std::max(existing->safe_overlap, prefix);
      } else {
        problem.overlaps.push_back({first_slice, static_cast<int32_t>(b), bx, prefix, 0});
      }
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
        auto pair = std::find_if(problem.overlaps.begin() + static_cast<std::ptrdiff_t>(first_new),
                                 problem.overlaps.end(), [&](const OverlapPair& q) {
                                   return q.output_buffer == member.buffer && q.input_buffer == in;
                                 });
        if (pair == problem.overlaps.end()) {
          all = false;
          break;
        }
        const int64_t size = problem.buffers[static_cast<size_t>(member.buffer)].size;
        covered += size;
        need = std::max(need, member.offset + size - pair->safe_overlap);
        op = pair->op;
      }
      const int64_t base_size = problem.buffers[static_cast<size_t>(base)].size;
      if (!all || covered != base_size) continue;
      const int64_t room = (base_size - need) / align * align;
      if (room <= 0) continue;
      auto existing = std::find_if(problem.overlaps.begin(), problem.overlaps.end(), [&](const OverlapPair& p) {
        return p.output_buffer == base && p.input_buffer == in;
      });
      if (existing != problem.overlaps.end()) {
        existing->safe_overlap = std::max(existing->safe_overlap, room);
      } else {
        problem.overlaps.push_back({op, base, in, room, 0});
      }
    }
  }
}

}  // namespace dmo

#include "dmo/transform/reorder.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

#include "dmo/model/lifetime.h"
#include "dmo/model/op_order.h"

namespace dmo {

const char* reorder_method_name(ReorderMethod method) {
  switch (method) {
    case ReorderMethod::kNone: return "none";
    case ReorderMethod::kChain: return "chain";
    case ReorderMethod::kExact: return "exact";
    case ReorderMethod::kHeuristic: return "heuristic";
  }
  return "none";
}

OrderProblem order_problem(const Graph& graph, const std::vector<int64_t>& overlap_bytes,
                           const std::vector<int32_t>& overlap_tensor, bool keep_graph_inputs) {
  const Subgraph& sg = graph.main();
  OrderProblem problem;
  problem.predecessors = op_predecessors(graph);
  std::vector<int32_t> buffer_of(sg.tensors.size(), -1);
  auto buffer = [&](int32_t t) -> OrderProblem::Buffer* {
    if (t == kNoTensor || !tflm_plans_tensor(sg.tensors[static_cast<size_t>(t)])) return nullptr;
    int32_t& b = buffer_of[static_cast<size_t>(t)];
    if (b < 0) {
      b = static_cast<int32_t>(problem.buffers.size());
      problem.buffers.push_back({});
      problem.buffers.back().bytes = (sg.tensors[static_cast<size_t>(t)].byte_size + 15) / 16 * 16;
    }
    return &problem.buffers[static_cast<size_t>(b)];
  };
  for (size_t i = 0; i < sg.ops.size(); ++i) {
    const auto op = static_cast<int32_t>(i);
    for (int32_t t : sg.ops[i].outputs) {
      if (OrderProblem::Buffer* b = buffer(t); b && b->producer < 0) b->producer = op;
    }
    for (int32_t t : sg.ops[i].inputs) {
      OrderProblem::Buffer* b = buffer(t);
      if (b && (b->readers.empty() || b->readers.back() != op)) b->readers.push_back(op);
    }
  }
  for (int32_t t : sg.outputs) {
    if (OrderProblem::Buffer* b = buffer(t)) b->live_to_end = true;
  }
  if (keep_graph_inputs) {
    for (int32_t t : sg.inputs) {
      if (OrderProblem::Buffer* b = buffer(t)) b->live_to_end = true;
    }
  }
  problem.overlap_bytes.assign(sg.ops.size(), 0);
  problem.overlap_buffer.assign(sg.ops.size(), -1);
  for (size_t i = 0; i < sg.ops.size() && i < overlap_bytes.size() && i < overlap_tensor.size(); ++i) {
    const int32_t t = overlap_tensor[i];
    if (t == kNoTensor || t < 0 || static_cast<size_t>(t) >= sg.tensors.size() || overlap_bytes[i] <= 0) continue;
    if (buffer_of[static_cast<size_t>(t)] < 0) continue;
    problem.overlap_bytes[i] = overlap_bytes[i];
    problem.overlap_buffer[i] = buffer_of[static_cast<size_t>(t)];
  }
  return problem;
}

namespace {

// A set of executed ops, one bit per op.
using OpSet = std::vector<uint64_t>;

bool contains(const OpSet& set, int32_t op) { return (set[static_cast<size_t>(op) / 64] >> (op % 64)) & 1u; }
void insert(OpSet& set, int32_t op) { set[static_cast<size_t>(op) / 64] |= uint64_t{1} << (op % 64); }

struct OpSetHash {
  size_t operator()(const OpSet& set) const {
    uint64_t h = 1469598103934665603ull;
    for (uint64_t word : set) h = (h ^ word) * 1099511628211ull + (h >> 29);
    return static_cast<size_t>(h);
  }
};

// What running the ops in a set leaves and costs: the bytes still live
// after them and the least peak of any order reaching it, with the last op
// of that order (to walk the order back).
struct SetState {
  int64_t peak = 0;
  int64_t live = 0;
  int32_t last_op = -1;
};

// The per-op facts the transitions need, precomputed.
class Transitions {
 public:
  explicit Transitions(const OrderProblem& problem)
      : problem_(problem), outputs_(problem.op_count()), inputs_(problem.op_count()),
        predecessors_(problem.op_count(), OpSet((problem.op_count() + 63) / 64, 0)) {
    for (size_t op = 0; op < problem.op_count(); ++op) {
      for (int32_t p : problem.predecessors[op]) insert(predecessors_[op], p);
    }
    for (size_t b = 0; b < problem.buffers.size(); ++b) {
      const OrderProblem::Buffer& buffer = problem.buffers[b];
      if (buffer.producer >= 0) outputs_[static_cast<size_t>(buffer.producer)].push_back(static_cast<int32_t>(b));
      for (int32_t r : buffer.readers) inputs_[static_cast<size_t>(r)].push_back(static_cast<int32_t>(b));
    }
  }

  // Bytes live before any op: the graph inputs that something reads or keeps.
  int64_t initial_live() const {
    int64_t live = 0;
    for (const OrderProblem::Buffer& b : problem_.buffers) {
      if (b.producer < 0 && (!b.readers.empty() || b.live_to_end)) live += b.bytes;
    }
    return live;
  }

  bool ready(const OpSet& done, int32_t op) const {
    if (contains(done, op)) return false;
    const OpSet& before = predecessors_[static_cast<size_t>(op)];
    for (size_t w = 0; w < done.size(); ++w) {
      if (before[w] & ~done[w]) return false;
    }
    return true;
  }

  // Running `op` after `done` (live bytes `live`): the memory while it runs
  // and the bytes live after it.
  std::pair<int64_t, int64_t> step(const OpSet& done, int64_t live, int32_t op) const {
    int64_t produced = 0, kept = 0, freed = 0;
    for (int32_t b : outputs_[static_cast<size_t>(op)]) {
      const OrderProblem::Buffer& buffer = problem_.buffers[static_cast<size_t>(b)];
      produced += buffer.bytes;
      if (buffer.live_to_end || std::any_of(buffer.readers.begin(), buffer.readers.end(),
                                            [&](int32_t r) { return r != op && !contains(done, r); })) {
        kept += buffer.bytes;
      }
    }
    bool overlap_input_dies = false;
    for (int32_t b : inputs_[static_cast<size_t>(op)]) {
      const OrderProblem::Buffer& buffer = problem_.buffers[static_cast<size_t>(b)];
      if (buffer.producer == op) continue;  // written in place by this op: counted as its output
      const bool dies = !buffer.live_to_end && std::all_of(buffer.readers.begin(), buffer.readers.end(), [&](int32_t r) {
        return r == op || contains(done, r);
      });
      if (dies) freed += buffer.bytes;
      if (dies && b == problem_.overlap_buffer[static_cast<size_t>(op)]) overlap_input_dies = true;
    }
    const int64_t during = live + produced - (overlap_input_dies ? problem_.overlap_bytes[static_cast<size_t>(op)] : 0);
    return {during, live + kept - freed};
  }

 private:
  const OrderProblem& problem_;
  std::vector<std::vector<int32_t>> outputs_;  // per op: buffers it produces
  std::vector<std::vector<int32_t>> inputs_;   // per op: buffers it reads
  std::vector<OpSet> predecessors_;            // per op, as a set
};

bool is_chain(const OrderProblem& problem) {
  for (size_t op = 1; op < problem.op_count(); ++op) {
    const auto& before = problem.predecessors[op];
    if (std::find(before.begin(), before.end(), static_cast<int32_t>(op) - 1) == before.end()) return false;
  }
  return true;
}

using Layer = std::unordered_map<OpSet, SetState, OpSetHash>;

// One step of the programme: every set of `from` extended by each ready op,
// each new set keeping its least peak. Stops early once it holds more than
// `limit` sets.
Layer next_layer(const Transitions& transitions, const Layer& from, size_t ops, int64_t limit) {
  Layer to;
  for (const auto& [done, state] : from) {
    if (static_cast<int64_t>(to.size()) > limit) break;
    for (size_t i = 0; i < ops; ++i) {
      const auto op = static_cast<int32_t>(i);
      if (!transitions.ready(done, op)) continue;
      const auto [during, after] = transitions.step(done, state.live, op);
      const int64_t peak = std::max(state.peak, during);
      OpSet next = done;
      insert(next, op);
      auto [it, added] = to.try_emplace(std::move(next), SetState{peak, after, op});
      if (!added && (peak < it->second.peak || (peak == it->second.peak && after < it->second.live))) {
        it->second = {peak, after, op};
      }
    }
  }
  return to;
}

// Keeps the `width` best sets of a layer: least peak, then least live bytes.
void keep_best(Layer& layer, int64_t width) {
  if (static_cast<int64_t>(layer.size()) <= width) return;
  std::vector<std::pair<std::pair<int64_t, int64_t>, const OpSet*>> ranked;
  ranked.reserve(layer.size());
  for (const auto& [set, state] : layer) ranked.push_back({{state.peak, state.live}, &set});
  std::nth_element(ranked.begin(), ranked.begin() + width, ranked.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  Layer kept;
  for (int64_t i = 0; i < width; ++i) kept.emplace(*ranked[static_cast<size_t>(i)].second, layer.at(*ranked[static_cast<size_t>(i)].second));
  layer = std::move(kept);
}

// The programme over all layers; false when it would visit more than
// `state_limit` sets (beam_width 0: keep every set).
bool run_programme(const OrderProblem& problem, int64_t state_limit, int64_t beam_width, OrderSearch& search) {
  const size_t n = problem.op_count();
  const Transitions transitions(problem);
  std::vector<Layer> layers(1);
  layers[0].emplace(OpSet((n + 63) / 64, 0), SetState{0, transitions.initial_live(), -1});
  int64_t visited = 1;
  for (size_t k = 0; k < n; ++k) {
    const int64_t room = beam_width > 0 ? std::numeric_limits<int64_t>::max() : state_limit - visited;
    layers.push_back(next_layer(transitions, layers.back(), n, room));
    visited += static_cast<int64_t>(layers.back().size());
    if (beam_width > 0) keep_best(layers.back(), beam_width);
    else if (visited > state_limit) return false;
  }
  // Walk the order back from the full set through each set's last op.
  OpSet set = layers.back().begin()->first;
  search.order.assign(n, -1);
  for (size_t k = n; k > 0; --k) {
    const int32_t op = layers[k].at(set).last_op;
    search.order[k - 1] = op;
    set[static_cast<size_t>(op) / 64] &= ~(uint64_t{1} << (op % 64));
  }
  search.states_visited = visited;
  return true;
}

}  // namespace

int64_t order_peak_bytes(const OrderProblem& problem, const std::vector<int32_t>& order) {
  const Transitions transitions(problem);
  OpSet done((problem.op_count() + 63) / 64, 0);
  int64_t live = transitions.initial_live(), peak = 0;
  for (int32_t op : order) {
    const auto [during, after] = transitions.step(done, live, op);
    peak = std::max(peak, during);
    live = after;
    insert(done, op);
  }
  return peak;
}

OrderSearch search_op_order(const OrderProblem& problem, const ReorderLimits& limits) {
  OrderSearch search;
  std::vector<int32_t> file(problem.op_count());
  for (size_t i = 0; i < file.size(); ++i) file[i] = static_cast<int32_t>(i);
  search.file_order_peak_bytes = order_peak_bytes(problem, file);
  if (problem.op_count() == 0 || is_chain(problem)) {
    search.order = file;
    search.method = ReorderMethod::kChain;
  } else if (run_programme(problem, limits.exact_states, 0, search)) {
    search.method = ReorderMethod::kExact;
  } else {
    run_programme(problem, 0, limits.beam_width, search);
    search.method = ReorderMethod::kHeuristic;
  }
  search.peak_bytes = order_peak_bytes(problem, search.order);
  if (search.peak_bytes >= search.file_order_peak_bytes) {
    search.order = file;
    search.peak_bytes = search.file_order_peak_bytes;
  }
  return search;
}

}  // namespace dmo

#include "dmo/overlap/safe_overlaps.h"

#include "dmo/overlap/algorithmic_overlap.h"
#include "dmo/overlap/analytic_overlap.h"

namespace dmo {

const char* overlap_method_name(OverlapMethod method) {
  switch (method) {
    case OverlapMethod::kNone: return "none";
    case OverlapMethod::kAnalytic: return "analytic";
    case OverlapMethod::kAlgorithmic: return "algorithmic";
  }
  return "?";
}

std::vector<OpOverlap> compute_safe_overlaps(const Graph& graph, const SafeOverlapOptions& options) {
  const Subgraph& sg = graph.main();
  std::vector<OverlapCandidate> pairs = overlap_candidates(sg, options.preserve_graph_inputs);
  std::vector<OpOverlap> result(pairs.size());
  for (size_t i = 0; i < pairs.size(); ++i) {
    result[i].pair = pairs[i];
    if (pairs[i].input == kNoTensor || pairs[i].output == kNoTensor) continue;
    AnalyticOverlap analytic = analytic_safe_overlap(sg, pairs[i].op, pairs[i].input, pairs[i].output);
    result[i].analytic = analytic.bytes;
    result[i].analytic_rule = analytic.rule;
  }
  // The algorithmic engine runs kernels; only ask it where it is needed.
  std::vector<OverlapCandidate> need;
  for (const OpOverlap& o : result) {
    bool wanted = options.compute_algorithmic || options.method == OverlapMethod::kAlgorithmic || !o.analytic;
    if (wanted && o.pair.input != kNoTensor && options.method != OverlapMethod::kNone) need.push_back(o.pair);
  }
  for (AlgorithmicOverlap& a : algorithmic_overlaps(graph, need)) {
    OpOverlap& o = result[static_cast<size_t>(a.pair.op)];
    o.algorithmic = a.bytes;
    o.algorithmic_unavailable = a.unavailable;
  }
  for (OpOverlap& o : result) {
    if (!o.pair.input_dies || options.method == OverlapMethod::kNone) continue;
    std::optional<int64_t> chosen = options.method == OverlapMethod::kAnalytic
                                        ? (o.analytic ? o.analytic : o.algorithmic)
                                        : (o.algorithmic ? o.algorithmic : o.analytic);
    if (chosen) o.used_bytes = *chosen / options.alignment * options.alignment;
  }
  return result;
}

void add_overlap_pairs(MemoryProblem& problem, const std::vector<OpOverlap>& overlaps) {
  std::vector<int32_t> buffer_of_tensor;
  for (size_t b = 0; b < problem.buffers.size(); ++b) {
    auto t = static_cast<size_t>(problem.buffers[b].tensor);
    if (buffer_of_tensor.size() <= t) buffer_of_tensor.resize(t + 1, -1);
    buffer_of_tensor[t] = static_cast<int32_t>(b);
  }
  auto buffer = [&](int32_t tensor) {
    return tensor >= 0 && static_cast<size_t>(tensor) < buffer_of_tensor.size()
               ? buffer_of_tensor[static_cast<size_t>(tensor)]
               : -1;
  };
  for (const OpOverlap& o : overlaps) {
    if (o.used_bytes <= 0) continue;
    int32_t out = buffer(o.pair.output), in = buffer(o.pair.input);
    if (out < 0 || in < 0) continue;
    problem.overlaps.push_back({o.pair.op, out, in, o.used_bytes});
  }
}

}  // namespace dmo

#include "dmo/overlap/safe_overlaps.h"

#include <algorithm>

#include <limits>

#include "dmo/model/model_timeline.h"
#include "dmo/overlap/algorithmic_overlap.h"
#include "dmo/overlap/analytic_overlap.h"
#include "dmo/ops/walk_order.h"

namespace dmo {

const char* overlap_method_name(OverlapMethod method) {
  switch (method) {
    case OverlapMethod::kNone: return "none";
    case OverlapMethod::kAnalytic: return "analytic";
    case OverlapMethod::kAlgorithmic: return "algorithmic";
  }
  return "?";
}

bool walks_descending_allowed(const std::vector<KernelFamily>& families) {
  return std::none_of(families.begin(), families.end(), [](KernelFamily f) { return is_cmsis_nn(f); });
}

std::vector<OpOverlap> compute_safe_overlaps(const Graph& graph, const SafeOverlapOptions& options) {
  return compute_safe_overlaps(graph, default_schedule(graph), options);
}

std::vector<OpOverlap> compute_safe_overlaps(const Graph& graph, const Schedule& schedule,
                                             const SafeOverlapOptions& options) {
  const Subgraph& sg = graph.main();
  std::vector<OverlapCandidate> pairs = overlap_candidates(graph, schedule, options.preserve_graph_inputs);
  // Ops of called subgraphs follow, by flat op index: same engines, their
  // own subgraph's kernels (which walk ascending only).
  for (const OverlapCandidate& c : called_subgraph_candidates(graph)) pairs.push_back(c);
  std::vector<OpOverlap> result(pairs.size());
  // Only dmo's own kernels walk descending, so an op may only when dmo can
  // run it: its kind walks descending and its data input, weights and
  // output share one element type (no hybrid float/int8 kernels).
  auto descends = [&](const OverlapCandidate& c) {
    if (static_cast<size_t>(c.op) >= sg.ops.size()) return false;
    const Op& op = sg.ops[static_cast<size_t>(c.op)];
    if (!options.allow_descending || !walks_descending_allowed(options.families) ||
        !kernel_walks_descending(static_cast<OpKind>(op.builtin_code))) return false;
    if (op.inputs.empty() || op.outputs.empty() || c.input != op.inputs[0]) return false;
    auto type = [&](int32_t t) { return sg.tensors[static_cast<size_t>(t)].type; };
    const DataType data = type(op.inputs[0]);
    if (type(op.outputs[0]) != data) return false;
    return op.inputs.size() < 2 || op.inputs[1] == kNoTensor || type(op.inputs[1]) == data ||
           op.is(OpKind::kAveragePool2D) || op.is(OpKind::kMaxPool2D);
  };
  for (size_t i = 0; i < pairs.size(); ++i) {
    result[i].pair = pairs[i];
    if (pairs[i].input == kNoTensor || pairs[i].output == kNoTensor) continue;
    const SubgraphIndex op = locate_flat_op(graph, pairs[i].op);
    AnalyticOverlap analytic =
        analytic_safe_overlap(graph.subgraphs[static_cast<size_t>(op.subgraph)], op.index,
                              locate_flat_tensor(graph, pairs[i].input).index,
                              locate_flat_tensor(graph, pairs[i].output).index);
    result[i].analytic = analytic.bytes;
    result[i].analytic_rule = analytic.rule;
    if (pairs[i].input_dies && descends(pairs[i])) {
      result[i].analytic_descending =
          analytic_safe_overlap(sg, pairs[i].op, pairs[i].input, pairs[i].output, /*descending=*/true).bytes;
    }
  }
  // The algorithmic engine runs kernels; only ask it where it is needed.
  std::vector<OverlapCandidate> need, need_descending;
  for (const OpOverlap& o : result) {
    bool wanted = options.compute_algorithmic || options.method == OverlapMethod::kAlgorithmic || !o.analytic;
    if (wanted && o.pair.input != kNoTensor && options.method != OverlapMethod::kNone) {
      need.push_back(o.pair);
      // The descending walk only matters where the planner may overlap.
      if (o.pair.input_dies && descends(o.pair)) need_descending.push_back(o.pair);
    }
  }
  std::vector<KernelFamily> cmsis_families;
  for (KernelFamily f : options.families) {
    if (is_cmsis_nn(f) && std::find(cmsis_families.begin(), cmsis_families.end(), f) == cmsis_families.end()) {
      cmsis_families.push_back(f);
    }
  }
  const size_t total = need.size() * (1 + cmsis_families.size()) + need_descending.size();
  size_t done = 0;
  std::function<void()> one_done;
  if (options.progress) one_done = [&] { options.progress(++done, total); };
  const KernelFamily own = own_kernels_family(options.families);
  for (AlgorithmicOverlap& a : algorithmic_overlaps(graph, need, /*descending=*/false, one_done, own)) {
    OpOverlap& o = result[static_cast<size_t>(a.pair.op)];
    o.algorithmic = a.bytes;
    o.algorithmic_unavailable = a.unavailable;
  }
  for (KernelFamily family : cmsis_families) {
    for (AlgorithmicOverlap& a : algorithmic_overlaps(graph, need, /*descending=*/false, one_done, family)) {
      if (a.implementation.empty() && a.unavailable.empty()) continue;  // the reference kernel runs
      result[static_cast<size_t>(a.pair.op)].by_family.push_back(
          {family, a.implementation, a.bytes, a.unavailable});
    }
  }
  std::vector<char> descending_failed(result.size(), 0);
  for (AlgorithmicOverlap& a : algorithmic_overlaps(graph, need_descending, /*descending=*/true, one_done, own)) {
    result[static_cast<size_t>(a.pair.op)].algorithmic_descending = a.bytes;
    descending_failed[static_cast<size_t>(a.pair.op)] = !a.bytes;
  }
  auto used = [&](const std::optional<int64_t>& analytic, const std::optional<int64_t>& algorithmic) -> int64_t {
    std::optional<int64_t> chosen = options.method == OverlapMethod::kAnalytic ? (analytic ? analytic : algorithmic)
                                                                               : (algorithmic ? algorithmic : analytic);
    return chosen ? *chosen / options.alignment * options.alignment : 0;
  };
  // Whether the base value (the reference or dmo-device kernels') stands for a family.
  const bool reference_family = std::any_of(options.families.begin(), options.families.end(),
                                            [](KernelFamily f) { return !is_cmsis_nn(f); });
  for (OpOverlap& o : result) {
    if (!o.pair.input_dies || options.method == OverlapMethod::kNone) continue;
    o.used_bytes = used(o.analytic, o.algorithmic);
    // A cmsis family's kernel replaces the reference one for this op: its
    // own loop nest's value, and no overlap where it has none. The
    // reference value stays a candidate while a family runs the reference
    // kernel (every family falls back to it for ops its glue leaves alone).
    bool reference_runs = reference_family || o.by_family.size() < cmsis_families.size();
    if (!reference_runs) o.used_bytes = std::numeric_limits<int64_t>::max();
    for (const FamilyOverlap& f : o.by_family) {
      o.used_bytes = std::min(o.used_bytes, f.algorithmic ? *f.algorithmic / options.alignment * options.alignment : 0);
    }
    // A kernel that failed to run cannot walk descending either.
    if (!descending_failed[static_cast<size_t>(o.pair.op)]) {
      o.used_descending_bytes = used(o.analytic_descending, o.algorithmic_descending);
    }
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
    if (o.used_bytes <= 0 && o.used_descending_bytes <= 0) continue;
    int32_t out = buffer(o.pair.output), in = buffer(o.pair.input);
    if (out < 0 || in < 0) continue;
    problem.overlaps.push_back({o.pair.op, out, in, o.used_bytes, o.used_descending_bytes});
  }
}

}  // namespace dmo

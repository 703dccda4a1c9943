#include "dmo/overlap/algorithmic_overlap.h"

#include <algorithm>
#include <mutex>
#include <unordered_map>

#include "dmo/error.h"
#include "dmo/ops/cmsis_nn_coverage.h"
#include "dmo/ops/kernels.h"
#include "dmo/overlap/on_every_core.h"
#include "dmo/overlap/op_signature.h"
#include "dmo/runtime/interpreter.h"

namespace dmo {

std::vector<AlgorithmicOverlap> algorithmic_overlaps(const Graph& graph, const std::vector<OverlapCandidate>& pairs,
                                                     bool descending, const std::function<void()>& one_done,
                                                     KernelFamily family) {
  // One interpreter for all ops: the address-only policy never touches its
  // memory, so the ops can be analysed side by side on every core.
  Schedule schedule = default_schedule(graph);
  schedule.kernels = family;
  const Interpreter interpreter(graph, unshared_placement(graph.main()), std::move(schedule));
  std::vector<AlgorithmicOverlap> result(pairs.size());
  // Ops of one signature have one O_s: run the first, copy it to the rest.
  std::vector<size_t> runs;                        // pairs whose kernels run
  std::vector<size_t> same_as(pairs.size());       // the pair whose run stands for each pair
  std::unordered_map<std::string, size_t> first_of;
  for (size_t i = 0; i < pairs.size(); ++i) {
    same_as[i] = i;
    if (pairs[i].input != kNoTensor && pairs[i].output != kNoTensor) {
      auto [at, added] = first_of.try_emplace(op_signature(graph, pairs[i].op, pairs[i].input, pairs[i].output), i);
      same_as[i] = at->second;
      if (!added) continue;
    }
    runs.push_back(i);
  }
  std::mutex telling;
  on_every_core(runs.size(), 1, [&](size_t r, size_t) {
    const size_t i = runs[r];
    const OverlapCandidate& pair = pairs[i];
    AlgorithmicOverlap& row = result[i];
    row.pair = pair;
    if (pair.input == kNoTensor || pair.output == kNoTensor) {
      row.unavailable = "no activation input";
    } else {
      // A cmsis family analyses only the ops its glue runs on CMSIS-NN.
      bool analyse = !is_cmsis_nn(family);
      if (!analyse) {
        try {
          row.implementation = prepare_kernel(interpreter.context(pair.op)).implementation;
        } catch (const Error&) {
          // No kernel of this family for the op (nor, mostly, of TFLM's):
          // the reference value, or its closed form, stands for it.
        }
        analyse = !row.implementation.empty();
        const OpContext ctx = interpreter.context(pair.op);
        std::optional<std::string> unmirrored;
        if (!analyse) unmirrored = unmirrored_cmsis_nn_function(*ctx.subgraph, *ctx.op);
        if (unmirrored) {
          // CMSIS-NN runs it in an order dmo does not know: no overlap.
          row.implementation = *unmirrored + " (order not mirrored by dmo)";
          row.bytes = 0;
        }
      }
      if (analyse) {
        try {
          row.bytes = algorithmic_safe_overlap(interpreter, pair.op, pair.input, pair.output, descending);
        } catch (const Error& e) {
          row.unavailable = e.what();
        }
      }
    }
    if (one_done) {
      std::lock_guard<std::mutex> lock(telling);
      one_done();
    }
  });
  for (size_t i = 0; i < pairs.size(); ++i) {
    if (same_as[i] == i) continue;
    result[i] = result[same_as[i]];
    result[i].pair = pairs[i];
    if (one_done) one_done();
  }
  return result;
}

}  // namespace dmo

#include "dmo/overlap/algorithmic_overlap.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

#include "dmo/error.h"
#include "dmo/ops/kernels.h"
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
  std::atomic<size_t> next{0};
  std::mutex telling;
  auto work = [&] {
    for (size_t i = next++; i < pairs.size(); i = next++) {
      const OverlapCandidate& pair = pairs[i];
      AlgorithmicOverlap& row = result[i];
      row.pair = pair;
      if (pair.input == kNoTensor || pair.output == kNoTensor) {
        row.unavailable = "no activation input";
      } else {
        if (is_cmsis_nn(family)) {
          try {
            row.implementation = prepare_kernel(interpreter.context(pair.op)).implementation;
          } catch (const Error&) {
            // No kernel of this family for the op (nor, mostly, of TFLM's):
            // the reference value, or its closed form, stands for it.
          }
        }
        try {
          if (!is_cmsis_nn(family) || !row.implementation.empty()) {
            row.bytes = algorithmic_safe_overlap(interpreter, pair.op, pair.input, pair.output, descending);
          }
        } catch (const Error& e) {
          row.unavailable = e.what();
        }
      }
      if (one_done) {
        std::lock_guard<std::mutex> lock(telling);
        one_done();
      }
    }
  };
  const size_t threads = std::min<size_t>(std::max(1u, std::thread::hardware_concurrency()), pairs.size());
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  return result;
}

}  // namespace dmo

// The algorithmic method: re-run each op's own loop nest with the
// address-only policy and take O_s from its reads and writes.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "dmo/model/graph.h"
#include "dmo/ops/kernel_family.h"
#include "dmo/overlap/overlap_candidates.h"

namespace dmo {

struct AlgorithmicOverlap {
  OverlapCandidate pair;
  std::optional<int64_t> bytes;  // absent when dmo has no kernel for the op
  std::string unavailable;       // why, when absent
  // The function a cmsis family's kernel mirrors; empty when the op runs
  // TFLM's reference kernel (then `bytes` is left absent for a cmsis
  // family: the reference value holds).
  std::string implementation;
};

// For every candidate with an input; ops without a kernel are reported, not
// fatal. `descending` runs the kernels walking descending (only the kinds
// of ops/walk_order.h can). `one_done`, when set, is called after each
// candidate, never by two threads at once (for a progress display).
// `family`: whose kernels; for a cmsis family only the ops its glue runs on
// CMSIS-NN are analysed.
std::vector<AlgorithmicOverlap> algorithmic_overlaps(const Graph& graph, const std::vector<OverlapCandidate>& pairs,
                                                     bool descending = false,
                                                     const std::function<void()>& one_done = {},
                                                     KernelFamily family = KernelFamily::kTflmReference);

}  // namespace dmo

// Safe overlaps for planning: per op, the (output, dying input) pair with
// O_s by each method, and the bytes the planner may use (the chosen method's
// value floored to the arena alignment, 0 when the input does not die).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "dmo/model/graph.h"
#include "dmo/ops/kernel_family.h"
#include "dmo/overlap/overlap_candidates.h"
#include "dmo/plan/memory_problem.h"

namespace dmo {

enum class OverlapMethod { kNone, kAnalytic, kAlgorithmic };

const char* overlap_method_name(OverlapMethod method);

// A cmsis family's kernel for an op its glue runs on CMSIS-NN.
struct FamilyOverlap {
  KernelFamily family = KernelFamily::kCmsisNn;
  std::string implementation;          // the CMSIS-NN function and path
  std::optional<int64_t> algorithmic;  // its loop nest's O_s (no closed forms for these)
  std::string unavailable;
};

struct OpOverlap {
  OverlapCandidate pair;
  std::optional<int64_t> analytic;     // closed form, when the op has one
  std::string analytic_rule;
  std::optional<int64_t> algorithmic;  // from the kernel's loop nest, when dmo has the kernel
  std::string algorithmic_unavailable;
  int64_t used_bytes = 0;              // what the planner may overlap
  // The same for the kernel walking descending (output above the input,
  // overlapping the input's end), for ops whose kernels can.
  std::optional<int64_t> analytic_descending;
  std::optional<int64_t> algorithmic_descending;
  int64_t used_descending_bytes = 0;
  // Per cmsis family of the options whose kernel for this op is not the
  // reference one. used_bytes is the least over the options' families.
  std::vector<FamilyOverlap> by_family;
};

struct SafeOverlapOptions {
  OverlapMethod method = OverlapMethod::kAlgorithmic;
  bool preserve_graph_inputs = false;
  int64_t alignment = 16;
  bool compute_algorithmic = true;  // also when the method is analytic (for reports)
  // Let kernels that can walk descending do so (dmo's runtime and generated
  // code); false keeps TFLite's ascending order, which TFLM's kernels need.
  bool allow_descending = true;
  // The kernel families the plan must be safe for: each op's O_s is the
  // least over them (a cmsis family's walks are ascending only).
  std::vector<KernelFamily> families = {KernelFamily::kTflmReference};
  // Told (ops done, ops to do) as the kernels' loop nests are analysed, for
  // a progress display; empty: nothing is told. Never called concurrently.
  std::function<void(size_t done, size_t total)> progress = nullptr;
};

// Whether kernels may walk descending: only dmo's reference kernels can, so
// a plan safe for a cmsis family walks ascending.
bool walks_descending_allowed(const std::vector<KernelFamily>& families);

// Per op of subgraph 0, for the pairs of overlap_candidates under `schedule`,
// then, for a model of several subgraphs, per op of the called subgraphs
// (called_subgraph_candidates): the result is indexed by flat op index.
// Analytic: the closed form where there is one, else the algorithmic value.
// Algorithmic: the kernel's exact value, else the closed form. Neither: 0.
std::vector<OpOverlap> compute_safe_overlaps(const Graph& graph, const Schedule& schedule,
                                             const SafeOverlapOptions& options);
// The same under the default schedule.
std::vector<OpOverlap> compute_safe_overlaps(const Graph& graph, const SafeOverlapOptions& options);

// Adds one overlap pair per op with used_bytes > 0 to a problem built from
// the same subgraph.
void add_overlap_pairs(MemoryProblem& problem, const std::vector<OpOverlap>& overlaps);

}  // namespace dmo

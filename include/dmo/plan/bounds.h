// Reference figures every plan is judged against.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "dmo/plan/memory_problem.h"

namespace dmo {

// Bytes a set of [start, end) spans covers together (sorts them).
int64_t union_bytes(std::vector<std::pair<int64_t, int64_t>>& spans);

// Every buffer its own memory: the sum of their sizes.
int64_t naive_bytes(const MemoryProblem& problem);

// Bytes live while each op runs (its inputs and outputs included). Buffers
// created before op 0 count from op 0; an alias group's bytes count once,
// and so do the bytes fixed buffers cover (their offsets may overlap by the
// plan that fixed them, as an accelerator's do).
std::vector<int64_t> live_bytes_per_op(const MemoryProblem& problem);

// The most bytes the overlap pairs live at each op can save there. Every
// shared byte lies in one output and one input, within the safe overlap of
// their pair (the larger of either walk) at one end of each, so the saving
// is at most the sum over outputs of their largest pair's overlap, and the
// same over inputs: the smaller sum. One pair: its safe overlap.
std::vector<int64_t> overlap_saving_per_op(const MemoryProblem& problem);

// Both per-op figures, for callers working out several bounds of one
// problem: each bound below also takes them instead of the problem alone.
struct LiveProfile {
  std::vector<int64_t> live;    // live_bytes_per_op
  std::vector<int64_t> saving;  // overlap_saving_per_op

  // Per op, the live bytes less the overlaps' saving: no plan needs fewer
  // bytes at that op (lower_bound_with_overlap_bytes is their largest).
  std::vector<int64_t> less_saving() const;
};
LiveProfile live_profile(const MemoryProblem& problem);

// No plan without overlaps can use less: the largest per-op live total (and
// the end of every fixed buffer).
int64_t lower_bound_bytes(const MemoryProblem& problem);
int64_t lower_bound_bytes(const MemoryProblem& problem, const std::vector<int64_t>& live_bytes);

// With overlaps: at each op the live bytes less the overlap saving there.
int64_t lower_bound_with_overlap_bytes(const MemoryProblem& problem);
int64_t lower_bound_with_overlap_bytes(const MemoryProblem& problem, const LiveProfile& profile);

// The per-op bound with overlaps, tightened by chains: when an op's live
// bytes exceed the arena, its output must overlap its input, sitting below
// it with starts at least |O| - O_s apart (ascending walk) or above it with
// ends at least |O| - O_s_descending apart (descending walk). Along a run of
// such ops that can only walk one way, where each output is the next op's
// overlapped input, the displacements add up, so the run's first input
// needs its size plus all of them. Ops that may walk either way can turn
// the run back and add nothing here, and so do ops where several pairs are
// live (any of them may be the one that overlaps). The smallest arena
// meeting both.
int64_t chain_lower_bound_with_overlap_bytes(const MemoryProblem& problem);
int64_t chain_lower_bound_with_overlap_bytes(const MemoryProblem& problem, const LiveProfile& profile);

}  // namespace dmo

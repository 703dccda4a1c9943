// A last step for dmo's planner on long graphs: packs every buffer again,
// exactly (exact_packing.h), a stretch of the graph at a time, for an arena
// of at most `target` (the lower bound). The buffers are taken in order of
// first use; each packing moves the next `stretch` of them and the
// `lookahead` after those, every buffer already packed staying, and keeps
// only the first `stretch`. A stretch that does not pack (within its node
// budget) undoes the 1, 2, 4, ... `max_back` stretches before it and packs
// them again with it, so a long-lived buffer put where it later fragments
// the arena is moved. The peak repair (peak_repair.h) re-packs windows
// around the top of a finished plan and cannot move a buffer living across
// many windows; this step places such a buffer knowing the stretches after
// its birth. First, though, the buffers live at the op with the most live
// bytes are packed together and kept: a buffer born early that lives
// across the graph (a recurrent net's state) then takes its place at the
// peak, which the stretches after its birth cannot see when the peak is a
// thousand ops later (tflm_pr_dp_net). When that seeded run does not
// reach the target, the plain one is tried.
//
// Buffers exact packing may not move (movable_buffers) stay where
// `plan` has them, and every op keeps the walk `plan` gives it, so the
// result is a valid plan (the validator checks it again).
//
// Cost: per packing O(n + p) to collect its buffers and set up the
// packing (n buffers and p overlap pairs in the problem), then up to
// node_budget nodes, each about O(m * k) for the m it moves and the k in
// and around it; at most about n / stretch packings plus the undone ones.
// It gives up once the nodes searched, each counted m * k times, and the
// packings' n + p reach work_budget: on a graph of 5,000 ops it uses about
// two fifths of it.
#pragma once

#include <cstdint>
#include <optional>

#include "dmo/plan/memory_problem.h"
#include "dmo/plan/plan.h"

namespace dmo {

struct RollingPackingOptions {
  int64_t alignment = 16;     // for buffers that name no alignment of their own
  int64_t end_rounding = 16;  // sizes rounded up to this where the arena is measured
  // Buffers kept per packing, and more packed with them and again in the
  // next. Smaller packings are cheaper but commit with less foresight: on
  // the synthetic recurrent graphs 20 and 20 reach the bound, 10 and 10 not.
  int32_t stretch = 20;
  int32_t lookahead = 20;
  int64_t node_budget = 2000;  // per packing
  int32_t max_back = 8;       // stretches undone at most when one does not pack
  // Per plan, the seeded and the plain run together: nodes searched times
  // the buffers each moves times those in and around it, plus the
  // problem's buffers and pairs per packing. About two and a half times
  // what synthetic_rnn_5000 uses to reach its bound.
  int64_t work_budget = int64_t{1} << 28;
};

// A plan with an arena of at most `target`, built as above from `plan`;
// nothing when a stretch does not pack after undoing max_back stretches,
// or when the work budget runs out first.
std::optional<Plan> pack_rolling(const MemoryProblem& problem, const Plan& plan, int64_t target,
                                 const RollingPackingOptions& options = {});

}  // namespace dmo

// Checks a plan against its problem, independently of the planner that made
// it: buffers whose lifetimes intersect must not share bytes, except an
// allowed (output, dying input) overlap pair, where the input may start as
// little as |O| - O_s bytes above the output's start (ops walking ascending)
// or the output as little as |I| - O_s_descending above the input's start
// (ops the plan lists as walking descending); offsets aligned; arena size =
// max end.
#pragma once

#include <string>
#include <vector>

#include "dmo/plan/memory_problem.h"
#include "dmo/plan/plan.h"

namespace dmo {

// Returns the problems found, empty when the plan is valid. `alignment` is
// the required offset alignment in bytes.
std::vector<std::string> validate_plan(const MemoryProblem& problem, const Plan& plan, int64_t alignment);

}  // namespace dmo

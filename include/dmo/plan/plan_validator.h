// Checks a plan against its problem, independently of the planner that made
// it: buffers whose lifetimes intersect must not share bytes, except an
// allowed (output, dying input) overlap pair, where the input may start as
// little as |O| - O_s bytes above the output's start (ops walking ascending)
// or the output as little as |I| - O_s_descending above the input's start
// (ops the plan lists as walking descending), any of an op's pairs may be
// the one; fixed buffers at their offsets and aliased buffers at their
// base's offset plus theirs; offsets aligned; arena size = max end.
// Buffers whose relative place the problem itself sets (two in one alias
// group, or two fixed ones: TFLM takes offline offsets unchecked) are not
// the plan's collisions.
#pragma once

#include <string>
#include <vector>

#include "dmo/plan/memory_problem.h"
#include "dmo/plan/plan.h"

namespace dmo {

// Returns the problems found, empty when the plan is valid. `alignment` is
// the default offset alignment in bytes, required of every buffer whose
// place the planner chose; a buffer's own alignment is required of it always.
std::vector<std::string> validate_plan(const MemoryProblem& problem, const Plan& plan, int64_t alignment);

}  // namespace dmo

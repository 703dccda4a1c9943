// Times inferences as firmware runs them: the interpreter is set up and
// every op prepared before the first, each inference copies the inputs in
// (untimed) and runs the schedule (timed); the figure is the median.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "dmo/runtime/interpreter.h"

namespace dmo::cli {

struct InferenceTiming {
  int32_t repeat = 0;
  double median_ms = 0;
  std::vector<uint8_t> first_outputs;  // the first inference's: later ones may see variables it changed
};

// Runs `repeat` (>= 1) inferences; `first_observer` is called after each op
// of the first only (dumps and progress), whose time it then includes.
InferenceTiming time_inferences(Interpreter& interpreter, std::span<const uint8_t> input, int32_t repeat,
                                const Interpreter::OpObserver& first_observer);

}  // namespace dmo::cli

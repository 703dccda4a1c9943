// A MemoryProblem as a JSON file, so a planner can be run and checked on a
// problem without its model (`dmo plan MODEL --dump-problem FILE` writes
// one, `dmo solve FILE` plans one). Sizes and offsets are bytes; buffer and
// op indices count from 0.
//
//   {
//     "op_count": 3,
//     "buffers": [
//       {"id": 0, "size": 1024, "first_use": -1, "last_use": 1,
//        "tensor": 0,          // optional: the model's tensor (default: id)
//        "alignment": 16,      // optional: a power of two (default: the planner's)
//        "fixed_offset": 0},   // optional: the buffer must sit exactly here
//       ...],
//     "aliases": [             // optional: buffer lives at offset(base) + offset
//       {"buffer": 2, "base": 1, "offset": 512}, ...],
//     "overlaps": [            // optional: op's output may overlap its dying input
//       {"op": 1, "output_buffer": 1, "input_buffer": 0,
//        "safe_overlap": 96, "safe_overlap_descending": 0}, ...]
//   }
//
// Ids are 0..n-1, each once. A lifetime is the ops a buffer is live at:
// -1 is before op 0, -2 before everything (TFLM's uninitialised). Keys other
// than these are refused, so a misspelt optional field is not ignored.
#pragma once

#include <string>

#include "dmo/plan/memory_problem.h"

namespace dmo {

// Throws dmo::Error "<source>: <problem>" (naming the buffer, alias or pair)
// for text that is not JSON, a missing or mistyped field, a negative size or
// offset, first_use > last_use, an id, buffer or op out of range, a
// duplicate id, an alignment that is not a power of two, or an alias cycle.
MemoryProblem parse_problem_json(const std::string& text, const std::string& source);

// Reads and parses `path`.
MemoryProblem read_problem_file(const std::string& path);

// The problem in the format above (pretty-printed, ending in a newline).
std::string problem_json(const MemoryProblem& problem);

}  // namespace dmo

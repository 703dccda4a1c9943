#include "dmo/overlap/algorithmic_overlap.h"

#include "dmo/error.h"
#include "dmo/runtime/interpreter.h"

namespace dmo {

std::vector<AlgorithmicOverlap> algorithmic_overlaps(const Graph& graph, const std::vector<OverlapCandidate>& pairs) {
  // One interpreter for all ops: the address-only policy never touches its memory.
  Interpreter interpreter(graph, unshared_placement(graph.main()));
  std::vector<AlgorithmicOverlap> result;
  for (const OverlapCandidate& pair : pairs) {
    AlgorithmicOverlap row{pair, std::nullopt, ""};
    if (pair.input == kNoTensor || pair.output == kNoTensor) {
      row.unavailable = "no activation input";
    } else {
      try {
        row.bytes = algorithmic_safe_overlap(interpreter, pair.op, pair.input, pair.output);
      } catch (const Error& e) {
        row.unavailable = e.what();
      }
    }
    result.push_back(std::move(row));
  }
  return result;
}

}  // namespace dmo

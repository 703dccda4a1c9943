// Proof by execution: a placement is safe for a model when running the model
// inside it gives the same output bytes as running it with nothing shared,
// and the checking policy sees no op read an input byte it already overwrote.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "dmo/model/graph.h"
#include "dmo/ops/memory_policy.h"
#include "dmo/runtime/tensor_placement.h"

namespace dmo {

struct OutputDifference {
  int32_t output = 0;   // position in the graph's output list
  int32_t tensor = 0;
  int64_t byte = 0;     // first differing byte within that tensor
  uint8_t expected = 0, actual = 0;
};

struct VerifyResult {
  std::optional<Clobber> clobber;
  std::optional<OutputDifference> difference;
  int64_t output_bytes_compared = 0;

  bool ok() const { return !clobber && !difference; }
  std::string describe(const Graph& graph) const;
};

VerifyResult verify_placement(const Graph& graph, const TensorPlacement& placement, std::span<const uint8_t> input);

}  // namespace dmo

// Proof by execution: a placement is safe for a model when running the model
// inside it gives the same output bytes as running it with nothing shared,
// and the checking policy sees no value lost while still needed anywhere in
// the arena.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "dmo/model/graph.h"
#include "dmo/ops/kernel_family.h"
#include "dmo/ops/memory_policy.h"
#include "dmo/runtime/tensor_placement.h"
#include "dmo/runtime/unwritten_reads.h"
#include "dmo/schedule/schedule.h"

namespace dmo {

struct OutputDifference {
  int32_t output = 0;   // position in the graph's output list
  int32_t tensor = 0;
  int64_t byte = 0;     // first differing byte within that tensor
  uint8_t expected = 0, actual = 0;
};

struct VerifyResult {
  // The planner-independent validator's findings on the placement and the
  // tensors read but never written: pipeline/verified_plan.h fills these,
  // verify_placement leaves them empty.
  std::vector<std::string> validator_errors;
  std::vector<UnwrittenRead> unwritten_reads;
  std::vector<Clobber> clobbers;   // contiguous runs within an op merged
  std::optional<Clobber> clobber;  // the first of `clobbers`
  std::optional<OutputDifference> difference;
  int64_t output_bytes_compared = 0;

  bool outputs_identical() const { return !difference; }
  bool ok() const { return validator_errors.empty() && unwritten_reads.empty() && clobbers.empty() && !difference; }
  // One line per finding (validator, unwritten reads, clobbers, output
  // difference), or one "ok" line.
  std::string describe(const Graph& graph) const;
};

// One line for a clobber: op, kind, writer, victim and the byte range (ops
// and tensors of called subgraphs named with their subgraph).
std::string describe_clobber(const Graph& graph, const Clobber& clobber);
// "tensor N 'name' is read by op K (KIND) but no op writes it; ...".
std::string describe_unwritten_read(const Subgraph& subgraph, const UnwrittenRead& read);

// Runs the model unshared and inside `placement` (with the checking policy)
// on `input`; throws dmo::Error when the placement does not fit the model or
// an op has no kernel.
// `family`'s kernels run inside the placement; TFLM's reference kernels
// run the unshared reference (every family computes TFLM's values).
VerifyResult verify_placement(const Graph& graph, const TensorPlacement& placement, std::span<const uint8_t> input,
                              KernelFamily family = KernelFamily::kTflmReference);
// The same with the placement's tensors run by `schedule` (its walks, split
// stages and kernel family); the unshared reference runs every op whole.
VerifyResult verify_placement(const Graph& graph, const TensorPlacement& placement, Schedule schedule,
                              std::span<const uint8_t> input);

}  // namespace dmo

// Resource variables as TFLM keeps them (micro_resource_variable.h,
// MicroResourceVariables): VAR_HANDLE names a variable by container and
// shared name and gets its id, the same id for the same names in any
// subgraph; the first ASSIGN_VARIABLE of a handle sizes the variable's
// buffer by the value it assigns and fills it with that value's zero point
// (as int8; 0 without quantization); READ_VARIABLE and ASSIGN_VARIABLE copy
// between the buffer and their tensors. The buffers are TFLM's persistent
// allocations, outside the arena, and keep their values from one run of the
// model to the next.
//
// TFLM does all the naming and sizing in Prepare, every op of every
// subgraph in order (MicroGraph::PrepareSubgraphs), before any op runs, so
// dmo does it once for the whole model, in the same order, when an
// interpreter is made: ids and sizes are then those TFLM's prepare gives,
// whichever op dmo prepares first. Like TFLM's ASSIGN_VARIABLE Prepare, it
// only sees handles that a VAR_HANDLE of the same subgraph produces.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dmo/model/graph.h"
#include "dmo/model/model_timeline.h"
#include "dmo/ops/tensor_ref.h"

namespace dmo {

class ResourceVariables {
 public:
  // Names and sizes the model's variables; never fails (ops with bad
  // operands are left to their kernels' prepare, which names them).
  ResourceVariables(const Graph& graph, const ModelTimeline& timeline);
  // Buffers are referred to by the prepared kernels: they never move.
  ResourceVariables(const ResourceVariables&) = delete;
  ResourceVariables& operator=(const ResourceVariables&) = delete;

  struct Variable {
    std::string container;
    std::string shared_name;
    bool allocated = false;  // an ASSIGN_VARIABLE sized it
    Tensor value;            // type, shape and bytes of the value that sized it
    int8_t default_value = 0;
    std::vector<uint8_t> buffer;
  };

  // The id of the variable whose handle flat tensor `tensor` holds, when a
  // VAR_HANDLE of its subgraph writes it; nullopt otherwise.
  std::optional<int32_t> handle_id(int32_t tensor) const;
  const Variable& variable(int32_t id) const { return variables_[static_cast<size_t>(id)]; }
  int32_t count() const { return static_cast<int32_t>(variables_.size()); }
  // The buffer of an allocated variable as a tensor outside the arena.
  TensorRef buffer_ref(int32_t id);

  // Every buffer back to its default value (TFLM's ResetAll).
  void reset();

 private:
  int32_t find_or_create(const std::string& container, const std::string& shared_name);

  std::vector<Variable> variables_;
  std::vector<int32_t> handle_of_tensor_;  // per flat tensor: variable id, -1 for none
};

}  // namespace dmo

// What a kernel gets: the op, its tensors, and a way to fail with a message
// naming the op.
#pragma once

#include <string>
#include <vector>

#include "dmo/model/graph.h"
#include "dmo/ops/kernel_family.h"
#include "dmo/ops/tensor_ref.h"

namespace dmo {

class ResourceVariables;

struct OpContext {
  const Subgraph* subgraph = nullptr;
  const Op* op = nullptr;
  int32_t op_index = -1;
  std::vector<TensorRef> inputs;   // one per op input; data == nullptr for an omitted one
  std::vector<TensorRef> outputs;
  // Walk the output from its last element to its first (only kernels for
  // which kernel_walks_descending() holds; see ops/walk_order.h).
  bool descending = false;
  // Whose loop order to follow (ops/kernel_family.h).
  KernelFamily family = KernelFamily::kTflmReference;
  // The model's resource variables (ops/resource_variables.h); null where
  // none are kept (a kernel prepared outside an interpreter).
  ResourceVariables* resources = nullptr;

  const TensorRef& input(size_t i) const { return inputs.at(i); }
  const TensorRef& output(size_t i) const { return outputs.at(i); }
  bool has_input(size_t i) const { return i < inputs.size() && inputs[i].tensor != nullptr; }

  // Throws dmo::Error: "op 3 (CONV_2D): <what>".
  [[noreturn]] void fail(const std::string& what) const;
  // Fails unless `condition`; `what` says what was expected.
  void require(bool condition, const std::string& what) const {
    if (!condition) fail(what);
  }
};

}  // namespace dmo

// What a kernel's eval step sees: the op's tensors, the walk and the output
// region. Plain data without ownership or a way to fail: eval only loops
// (checks belong to prepare), so it can later run freestanding on a device.
#pragma once

#include <cstddef>
#include <span>

#include "dmo/ops/output_region.h"
#include "dmo/ops/tensor_ref.h"

namespace dmo {

struct KernelIO {
  std::span<const TensorRef> inputs;   // one per op input; tensor == nullptr for an omitted one
  std::span<const TensorRef> outputs;
  bool descending = false;  // walk the output from its last element to its first (ops/walk_order.h)
  OutputRegion region;      // the part of output 0 to compute

  const TensorRef& input(size_t i) const { return inputs[i]; }
  const TensorRef& output(size_t i) const { return outputs[i]; }
  bool has_input(size_t i) const { return i < inputs.size() && inputs[i].tensor != nullptr; }
};

}  // namespace dmo

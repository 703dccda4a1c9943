#include "dmo/model/lifetime.h"

#include <fmt/format.h>

#include "dmo/error.h"

namespace dmo {

std::vector<Lifetime> compute_lifetimes(const Subgraph& subgraph) {
  std::vector<Lifetime> lifetimes(subgraph.tensors.size());
  auto create = [&](int32_t tensor, int32_t time) { lifetimes[static_cast<size_t>(tensor)] = {time, time}; };
  auto use = [&](int32_t tensor, int32_t time) { lifetimes[static_cast<size_t>(tensor)].last = time; };

  for (int32_t t : subgraph.inputs) create(t, kBeforeFirstOp);
  for (int32_t t : subgraph.outputs) create(t, kBeforeFirstOp);
  const auto op_count = static_cast<int32_t>(subgraph.ops.size());
  for (int32_t i = 0; i < op_count; ++i) {
    const Op& op = subgraph.ops[static_cast<size_t>(i)];
    for (int32_t t : op.outputs) create(t, i);
    for (int32_t t : op.inputs) {
      if (t != kNoTensor) use(t, i);
    }
    for (int32_t t : op.outputs) use(t, i);
  }
  for (int32_t t : subgraph.outputs) use(t, op_count - 1);
  return lifetimes;
}

bool tflm_plans_tensor(const Tensor& tensor) {
  return !tensor.is_constant && !tensor.is_variable && tensor.byte_size != 0;
}

void check_execution_order(const Subgraph& subgraph, int subgraph_index, const std::string& source) {
  std::vector<int32_t> writer(subgraph.tensors.size(), -1);
  for (size_t i = 0; i < subgraph.ops.size(); ++i) {
    for (int32_t t : subgraph.ops[i].outputs) {
      const Tensor& tensor = subgraph.tensors[static_cast<size_t>(t)];
      int32_t& w = writer[static_cast<size_t>(t)];
      if (w >= 0 && !tensor.is_variable) {
        throw Error(fmt::format("{}: subgraph {}: tensor {} '{}' is written by op {} ({}) and again by op {} ({})",
                                source, subgraph_index, t, tensor.name, w, subgraph.ops[static_cast<size_t>(w)].name(),
                                i, subgraph.ops[i].name()));
      }
      if (tensor.is_constant) {
        throw Error(fmt::format("{}: subgraph {}: op {} ({}) writes tensor {} '{}', which is constant", source,
                                subgraph_index, i, subgraph.ops[i].name(), t, tensor.name));
      }
      if (w < 0) w = static_cast<int32_t>(i);
    }
  }
  for (size_t i = 0; i < subgraph.ops.size(); ++i) {
    for (int32_t t : subgraph.ops[i].inputs) {
      if (t == kNoTensor) continue;
      int32_t w = writer[static_cast<size_t>(t)];
      if (w > static_cast<int32_t>(i) && !subgraph.tensors[static_cast<size_t>(t)].is_variable) {
        throw Error(fmt::format(
            "{}: subgraph {}: op {} ({}) reads tensor {} '{}' before op {} ({}) writes it: ops are not in "
            "execution order",
            source, subgraph_index, i, subgraph.ops[i].name(), t, subgraph.tensors[static_cast<size_t>(t)].name, w,
            subgraph.ops[static_cast<size_t>(w)].name()));
      }
    }
  }
}

}  // namespace dmo

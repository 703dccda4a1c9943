#include "dmo/model/lifetime.h"

#include <fmt/format.h>

#include "dmo/error.h"

namespace dmo {

std::vector<Lifetime> compute_lifetimes(const Subgraph& subgraph) {
  std::vector<int32_t> file_order(subgraph.ops.size());
  for (size_t i = 0; i < file_order.size(); ++i) file_order[i] = static_cast<int32_t>(i);
  return compute_lifetimes(subgraph, file_order);
}

std::vector<Lifetime> compute_lifetimes(const Subgraph& subgraph, std::span<const int32_t> op_at_time) {
  std::vector<Lifetime> lifetimes(subgraph.tensors.size());
  std::vector<int32_t> creator(subgraph.tensors.size(), -1);  // the op that last created it
  auto create = [&](int32_t tensor, int32_t time) { lifetimes[static_cast<size_t>(tensor)] = {time, time}; };
  auto use = [&](int32_t tensor, int32_t time) { lifetimes[static_cast<size_t>(tensor)].last = time; };

  for (int32_t t : subgraph.inputs) create(t, kBeforeFirstOp);
  for (int32_t t : subgraph.outputs) create(t, kBeforeFirstOp);
  const auto times = static_cast<int32_t>(op_at_time.size());
  for (int32_t i = 0; i < times; ++i) {
    const int32_t op_index = op_at_time[static_cast<size_t>(i)];
    const Op& op = subgraph.ops[static_cast<size_t>(op_index)];
    // Writing creates a tensor (overriding a graph output's -1); an op that
    // runs in several steps creates its outputs at its first.
    for (int32_t t : op.outputs) {
      if (creator[static_cast<size_t>(t)] != op_index) create(t, i);
      creator[static_cast<size_t>(t)] = op_index;
    }
    for (int32_t t : op.inputs) {
      if (t != kNoTensor) use(t, i);
    }
    for (int32_t t : op.outputs) use(t, i);
  }
  for (int32_t t : subgraph.outputs) use(t, times - 1);
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

// TFLM's MicroResourceVariables (micro_resource_variable.cc): ids by
// CreateIdIfNoneFound in VAR_HANDLE's Prepare, buffers by Allocate in
// ASSIGN_VARIABLE's Prepare, reset by ResetAll.
#include "dmo/ops/resource_variables.h"

#include <cstring>
#include <utility>
#include <variant>

#include "dmo/model/op_kind.h"
#include "dmo/model/op_params.h"

namespace dmo {

ResourceVariables::ResourceVariables(const Graph& graph, const ModelTimeline& timeline) {
  handle_of_tensor_.assign(timeline.lifetimes.size(), -1);
  for (size_t s = 0; s < graph.subgraphs.size(); ++s) {
    const Subgraph& sg = graph.subgraphs[s];
    auto flat = [&](int32_t t) { return static_cast<size_t>(timeline.flat_tensor(static_cast<int32_t>(s), t)); };
    auto valid = [&](int32_t t) { return t >= 0 && static_cast<size_t>(t) < sg.tensors.size(); };
    for (const Op& op : sg.ops) {
      if (op.is(OpKind::kVarHandle)) {
        const auto* params = std::get_if<VarHandleParams>(&op.params);
        if (!params || op.outputs.size() != 1 || !valid(op.outputs[0])) continue;
        handle_of_tensor_[flat(op.outputs[0])] = find_or_create(params->container, params->shared_name);
      } else if (op.is(OpKind::kAssignVariable)) {
        if (op.inputs.size() != 2 || !valid(op.inputs[0]) || !valid(op.inputs[1])) continue;
        const int32_t id = handle_of_tensor_[flat(op.inputs[0])];
        if (id < 0) continue;  // a handle from another subgraph: TFLM allocates nothing here either
        Variable& v = variables_[static_cast<size_t>(id)];
        if (v.allocated) continue;
        const Tensor& value = sg.tensors[static_cast<size_t>(op.inputs[1])];
        v.allocated = true;
        v.value.name = v.shared_name;
        v.value.type = value.type;
        v.value.shape = value.shape;
        v.value.element_count = value.element_count;
        v.value.byte_size = value.byte_size;
        // TFLM fills with the value's first zero point cast to int8 whenever
        // the value has affine quantization.
        const Quantization& q = value.quantization;
        if (!q.scale.empty() && !q.zero_point.empty()) v.default_value = static_cast<int8_t>(q.zero_point[0]);
        v.buffer.assign(static_cast<size_t>(value.byte_size), 0);
      }
    }
  }
  reset();
}

int32_t ResourceVariables::find_or_create(const std::string& container, const std::string& shared_name) {
  for (size_t i = 0; i < variables_.size(); ++i) {
    if (variables_[i].container == container && variables_[i].shared_name == shared_name) {
      return static_cast<int32_t>(i);
    }
  }
  Variable v;
  v.container = container;
  v.shared_name = shared_name;
  variables_.push_back(std::move(v));
  return static_cast<int32_t>(variables_.size() - 1);
}

std::optional<int32_t> ResourceVariables::handle_id(int32_t tensor) const {
  if (tensor < 0 || static_cast<size_t>(tensor) >= handle_of_tensor_.size()) return std::nullopt;
  const int32_t id = handle_of_tensor_[static_cast<size_t>(tensor)];
  if (id < 0) return std::nullopt;
  return id;
}

TensorRef ResourceVariables::buffer_ref(int32_t id) {
  Variable& v = variables_[static_cast<size_t>(id)];
  TensorRef r;
  r.tensor = &v.value;
  r.data = v.buffer.data();
  r.index = -1;  // no tensor of the model: never one of an overlap's pair
  return r;
}

void ResourceVariables::reset() {
  for (Variable& v : variables_) {
    if (!v.buffer.empty()) std::memset(v.buffer.data(), static_cast<uint8_t>(v.default_value), v.buffer.size());
  }
}

}  // namespace dmo

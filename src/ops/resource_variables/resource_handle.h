// What READ_VARIABLE and ASSIGN_VARIABLE check of their resource handle
// (input 0) in prepare, and the variable it names.
#pragma once

#include <string>

#include <fmt/format.h>

#include "dmo/model/data_type.h"
#include "dmo/ops/op_context.h"
#include "dmo/ops/resource_variables.h"

namespace dmo {

// "INT32 4x2 (32 bytes)": how errors name a value.
inline std::string describe_value(const Tensor& t) {
  return fmt::format("{} {} ({} bytes)", data_type_name(t.type), t.shape.empty() ? "scalar" : shape_to_string(t.shape),
                     t.byte_size);
}

// The id of the variable input 0 names. TFLM accepts a RESOURCE or INT32
// handle of one element; dmo resolves it when a VAR_HANDLE of the op's own
// subgraph writes it (where TFLM's Prepare can see it too).
inline int32_t resource_id_of_handle(const OpContext& ctx) {
  const TensorRef& handle = ctx.input(0);
  ctx.require(handle.type() == DataType::kResource || handle.type() == DataType::kInt32,
              fmt::format("input 0 (the resource handle) is {}; it must be RESOURCE", data_type_name(handle.type())));
  ctx.require(handle.elements() == 1,
              fmt::format("input 0 (the resource handle) has {} elements; it must have 1", handle.elements()));
  ctx.require(ctx.resources != nullptr, "resource variables are not kept here (run the op inside a model)");
  const std::optional<int32_t> id = ctx.resources->handle_id(handle.index);
  ctx.require(id.has_value(),
              fmt::format("input 0 (the resource handle) '{}' is not written by a VAR_HANDLE of this subgraph",
                          handle.tensor->name));
  return *id;
}

// Fails unless `t` has the type and bytes of the variable's value.
inline void require_variable_value(const OpContext& ctx, const ResourceVariables::Variable& v, const Tensor& t,
                                   const std::string& what) {
  ctx.require(t.type == v.value.type && t.byte_size == v.value.byte_size,
              fmt::format("{} is {} but resource variable '{}' holds {}", what, describe_value(t), v.shared_name,
                          describe_value(v.value)));
}

}  // namespace dmo

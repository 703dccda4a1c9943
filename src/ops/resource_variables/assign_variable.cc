// ASSIGN_VARIABLE, mirroring TFLM's assign_variable.cc (Prepare, Eval) and
// MicroResourceVariables::Allocate and Assign: the first ASSIGN_VARIABLE of
// a handle sizes the variable by its value (ops/resource_variables.h);
// eval reads the handle's id, then one memcpy of the value into the
// variable's buffer (outside the arena). No outputs.
#include <fmt/format.h>

#include "../element_width.h"
#include "dmo/ops/kernels.h"
#include "resource_handle.h"

namespace dmo {

namespace {

struct AssignVariableKernel {
  TensorRef variable;  // the buffer, outside the arena
  int64_t elements = 0;
  ElementWidth width = ElementWidth::k1;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    mem.template load<int32_t>(io.input(0), 0);  // the id, as TFLM's Assign takes it
    with_element_width(width, [&]<typename U>() { mem.template copy<U>(variable, 0, io.input(1), 0, elements); });
  }
};

}  // namespace

PreparedKernel prepare_assign_variable(const OpContext& ctx) {
  ctx.require(ctx.inputs.size() == 2, fmt::format("expected 2 inputs, got {}", ctx.inputs.size()));
  for (size_t i = 0; i < 2; ++i) ctx.require(ctx.has_input(i), fmt::format("input {} is missing", i));
  ctx.require(ctx.outputs.empty(), fmt::format("expected 0 outputs, got {}", ctx.outputs.size()));
  const int32_t id = resource_id_of_handle(ctx);
  const ResourceVariables::Variable& v = ctx.resources->variable(id);
  const TensorRef& value = ctx.input(1);
  require_variable_value(ctx, v, *value.tensor, "the value (input 1)");
  AssignVariableKernel k;
  k.variable = ctx.resources->buffer_ref(id);
  k.elements = value.elements();
  k.width = element_width(ctx, value.type());
  return PreparedKernel::of(std::move(k));
}

}  // namespace dmo

// READ_VARIABLE, mirroring TFLM's read_variable.cc (Prepare, Eval) and
// MicroResourceVariables::Read: the handle's id is read, then one memcpy of
// the variable's buffer (outside the arena) into the output. The handle
// is read before any output byte is written.
#include <fmt/format.h>

#include "../element_width.h"
#include "dmo/ops/kernels.h"
#include "resource_handle.h"

namespace dmo {

namespace {

struct ReadVariableKernel {
  TensorRef variable;  // the buffer, outside the arena
  int64_t elements = 0;
  ElementWidth width = ElementWidth::k1;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    mem.template load<int32_t>(io.input(0), 0);  // the id, as TFLM's Read takes it
    with_element_width(width, [&]<typename U>() { mem.template copy<U>(io.output(0), 0, variable, 0, elements); });
  }
};

}  // namespace

PreparedKernel prepare_read_variable(const OpContext& ctx) {
  ctx.require(ctx.inputs.size() == 1 && ctx.has_input(0), fmt::format("expected 1 input, got {}", ctx.inputs.size()));
  ctx.require(ctx.outputs.size() == 1 && ctx.output(0).tensor != nullptr,
              fmt::format("expected 1 output, got {}", ctx.outputs.size()));
  const int32_t id = resource_id_of_handle(ctx);
  const ResourceVariables::Variable& v = ctx.resources->variable(id);
  // TFLM would copy from a buffer never allocated (a null pointer).
  ctx.require(v.allocated, fmt::format("reads resource variable '{}', which no ASSIGN_VARIABLE of the model assigns",
                                       v.shared_name));
  const TensorRef& out = ctx.output(0);
  require_variable_value(ctx, v, *out.tensor, "the output");
  ReadVariableKernel k;
  k.variable = ctx.resources->buffer_ref(id);
  k.elements = out.elements();
  k.width = element_width(ctx, out.type());
  return PreparedKernel::of(std::move(k));
}

}  // namespace dmo

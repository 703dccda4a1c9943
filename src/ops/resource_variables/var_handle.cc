// VAR_HANDLE, mirroring TFLM's var_handle.cc (VarHandlePrepare,
// VarHandleEval): the variable's id, found or created by container and
// shared name in Prepare (ops/resource_variables.h), is the op's output.
// TFLM points the output at the id it keeps; dmo stores the id in the
// output's bytes, so the ops reading the handle read it where the plan
// puts it (a plan safe for that is safe for TFLM, which reads no arena).
#include <fmt/format.h>

#include <variant>

#include "dmo/model/data_type.h"
#include "dmo/ops/kernels.h"
#include "dmo/ops/resource_variables.h"

namespace dmo {

namespace {

struct VarHandleKernel {
  int32_t id = 0;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    mem.template store<int32_t>(io.output(0), 0, id);
  }
};

}  // namespace

PreparedKernel prepare_var_handle(const OpContext& ctx) {
  ctx.require(ctx.inputs.empty(), fmt::format("expected 0 inputs, got {}", ctx.inputs.size()));
  ctx.require(ctx.outputs.size() == 1 && ctx.output(0).tensor != nullptr,
              fmt::format("expected 1 output, got {}", ctx.outputs.size()));
  ctx.require(std::holds_alternative<VarHandleParams>(ctx.op->params), "has no VarHandleOptions");
  const TensorRef& out = ctx.output(0);
  ctx.require(out.type() == DataType::kResource,
              fmt::format("output type {} is not supported; the output must be RESOURCE", data_type_name(out.type())));
  ctx.require(out.elements() == 1, fmt::format("output has {} elements; a resource handle has 1", out.elements()));
  ctx.require(ctx.resources != nullptr, "resource variables are not kept here (run the op inside a model)");
  const std::optional<int32_t> id = ctx.resources->handle_id(out.index);
  ctx.require(id.has_value(), "its output is not a resource handle of the model");
  return PreparedKernel::of(VarHandleKernel{*id});
}

}  // namespace dmo

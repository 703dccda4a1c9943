// RESHAPE and SQUEEZE: the same bytes under another shape, mirroring TFLM's
// reshape kernel (EvalReshapeReference) and squeeze kernel (SqueezeEval):
// one memcpy of the whole tensor (RESHAPE skips it when input and output
// share their bytes; SQUEEZE copies anyway, harmless on the same bytes).
// memcpy's order is unspecified, so this is one block copy
// (ops/block_copy.h): the whole output below the whole input (O_s 0), and
// any partial overlap a clobber. The output
// shape comes from the model; only the element counts must agree.
#include <fmt/format.h>

#include "../element_width.h"
#include "dmo/model/data_type.h"
#include "dmo/ops/eval/flat_copy.h"
#include "dmo/ops/kernels.h"

namespace dmo {

namespace {

// The prepared whole-tensor copy: element count and width.
struct FlatCopyKernel {
  int64_t elements = 0;
  ElementWidth width = ElementWidth::k1;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    with_element_width(width, [&]<typename U>() { flat_copy<U>(io, mem, elements); });
  }
};

PreparedKernel prepare_flat_copy(const OpContext& ctx) {
  const TensorRef& input = ctx.input(0);
  const TensorRef& output = ctx.output(0);
  ctx.require(input.type() == output.type(), fmt::format("output type {} differs from input type {}",
                                                         data_type_name(output.type()), data_type_name(input.type())));
  ctx.require(input.elements() == output.elements(),
              fmt::format("input {} has {} elements but output {} has {}", shape_to_string(input.shape()),
                          input.elements(), shape_to_string(output.shape()), output.elements()));
  FlatCopyKernel k;
  k.width = element_width(ctx, input.type());
  k.elements = output.elements();
  auto device = std::make_shared<DeviceKernel>();
  device->loops = DeviceLoops::kCopy;
  device->type = input.type();
  device->copy_elements = k.elements;
  device->copy_element_bytes = static_cast<int32_t>(k.width);
  PreparedKernel p = PreparedKernel::of(std::move(k));
  p.device = std::move(device);
  return p;
}

}  // namespace

PreparedKernel prepare_reshape(const OpContext& ctx) {
  // Input 1, when present, is the new shape; it may be a zero-size tensor
  // with no data (a scalar output), so it is not read: the output has the shape.
  ctx.require(ctx.inputs.size() == 1 || ctx.inputs.size() == 2,
              fmt::format("expected 1 or 2 inputs, got {}", ctx.inputs.size()));
  ctx.require(ctx.outputs.size() == 1, fmt::format("expected 1 output, got {}", ctx.outputs.size()));
  ctx.require(ctx.has_input(0), "input 0 is missing");
  return prepare_flat_copy(ctx);
}

PreparedKernel prepare_squeeze(const OpContext& ctx) {
  ctx.require(ctx.inputs.size() == 1, fmt::format("expected 1 input, got {}", ctx.inputs.size()));
  ctx.require(ctx.outputs.size() == 1, fmt::format("expected 1 output, got {}", ctx.outputs.size()));
  ctx.require(ctx.has_input(0), "input 0 is missing");
  return prepare_flat_copy(ctx);
}

}  // namespace dmo

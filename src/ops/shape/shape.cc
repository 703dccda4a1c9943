// SHAPE: the input's dimensions as INT32 values, mirroring TFLM's shape
// kernel (ShapeEval, ExtractShape): one store per dimension, in order, and
// no load of the input's data at all, so the output may lie anywhere over
// the input. TFLM refuses any output type but INT32 (at eval); it writes as
// many values as the input has dimensions, so dmo checks the output holds
// exactly that many.
#include <fmt/format.h>

#include "../elementwise.h"
#include "../supported_types.h"
#include "dmo/ops/kernels.h"

namespace dmo {

namespace {

struct ShapeKernel {
  std::vector<int32_t> dims;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const TensorRef& output = io.output(0);
    for (size_t i = 0; i < dims.size(); ++i) mem.template store<int32_t>(output, static_cast<int64_t>(i), dims[i]);
  }
};

}  // namespace

PreparedKernel prepare_shape(const OpContext& ctx) {
  require_operand_counts(ctx, 1, 1);
  const TensorRef& input = ctx.input(0);
  const TensorRef& output = ctx.output(0);
  require_type_among(ctx, "output", output.type(), {DataType::kInt32});
  ctx.require(output.elements() == static_cast<int64_t>(input.rank()),
              fmt::format("output {} holds {} values for a {}-D input", shape_to_string(output.shape()),
                          output.elements(), input.rank()));
  ShapeKernel k;
  k.dims.assign(input.shape().begin(), input.shape().end());
  return PreparedKernel::of(std::move(k));
}

}  // namespace dmo

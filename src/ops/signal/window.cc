// SignalWindow (TFLM's signal/micro/kernels/window.cc WindowEval, calling
// signal/src/window.cc ApplyWindow once per window-length frame): each
// output element is input * weight shifted right by `shift`, saturated to
// int16; input and output walk ascending together.
#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "../custom_options.h"
#include "../elementwise.h"
#include "dmo/ops/kernels.h"

namespace dmo {

namespace {

struct WindowKernel {
  int32_t shift = 0;
  int64_t input_size = 0;
  int64_t weight_size = 0;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const TensorRef& input = io.input(0);
    const TensorRef& weights = io.input(1);
    const TensorRef& output = io.output(0);
    for (int64_t frame = 0; frame < input_size; frame += weight_size) {
      for (int64_t i = 0; i < weight_size; ++i) {
        const int32_t sample = mem.template load<int16_t>(input, frame + i);
        const int32_t weight = mem.template load<int16_t>(weights, i);
        const int32_t raw = (sample * weight) >> shift;
        const int32_t clamped = std::clamp<int32_t>(raw, std::numeric_limits<int16_t>::min(),
                                                    std::numeric_limits<int16_t>::max());
        mem.template store<int16_t>(output, frame + i, static_cast<int16_t>(clamped));
      }
    }
  }
};

}  // namespace

PreparedKernel prepare_signal_window(const OpContext& ctx) {
  require_operand_counts(ctx, 2, 1);
  const CustomOptions options(ctx);
  const TensorRef& input = ctx.input(0);
  const TensorRef& weights = ctx.input(1);
  const TensorRef& output = ctx.output(0);
  for (auto [what, t] : {std::pair{"input", &input}, std::pair{"weights", &weights}, std::pair{"output", &output}}) {
    if (t->type() != DataType::kInt16) fail_unsupported_type(ctx, what, t->type(), "INT16");
  }
  ctx.require(input.rank() >= 1 && input.rank() == output.rank(),
              fmt::format("input has {} dimensions and output {}; they must be equal and at least 1", input.rank(),
                          output.rank()));
  ctx.require(weights.rank() == 1, fmt::format("weights have {} dimensions; expected 1", weights.rank()));
  require_same_element_count(ctx);
  const int64_t weight_size = weights.dim(0);
  ctx.require(weight_size > 0 && input.elements() % weight_size == 0,
              fmt::format("input has {} elements, not a whole number of {}-sample windows", input.elements(),
                          weight_size));
  WindowKernel kernel;
  kernel.shift = options.integer("shift", 0, 31);
  kernel.input_size = input.elements();
  kernel.weight_size = weight_size;
  return PreparedKernel::of(kernel);
}

}  // namespace dmo

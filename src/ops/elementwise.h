// What the element-wise, activation, pooling and softmax kernels share: the
// checks of operand counts and types, the per-tensor quantization of an
// operand, the fused activation of ADD, SUB and MUL, and the flat
// element-wise loop with its prepared kernel.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string_view>
#include <utility>
#include <variant>

#include <fmt/format.h>

#include "dmo/ops/eval/map_elements_loops.h"
#include "dmo/model/data_type.h"
#include "dmo/model/op_params.h"
#include "dmo/ops/activation_range.h"
#include "dmo/ops/fixed_point.h"
#include "dmo/ops/kernel_io.h"
#include "dmo/ops/op_context.h"
#include "dmo/ops/prepared_kernel.h"

namespace dmo {

// Fails unless the op has exactly `inputs` present inputs and `outputs` outputs.
inline void require_operand_counts(const OpContext& ctx, size_t inputs, size_t outputs) {
  ctx.require(ctx.inputs.size() == inputs, fmt::format("expected {} input(s), got {}", inputs, ctx.inputs.size()));
  for (size_t i = 0; i < inputs; ++i) ctx.require(ctx.has_input(i), fmt::format("input {} is missing", i));
  ctx.require(ctx.outputs.size() == outputs && (outputs == 0 || ctx.output(0).tensor != nullptr),
              fmt::format("expected {} output(s), got {}", outputs, ctx.outputs.size()));
}

// Fails unless the op has two inputs and one output and both inputs have one
// type; returns that type (the binary ops compute in it).
inline DataType require_two_inputs_of_one_type(const OpContext& ctx) {
  require_operand_counts(ctx, 2, 1);
  const DataType type = ctx.input(0).type();
  ctx.require(ctx.input(1).type() == type, fmt::format("input 1 type {} differs from input 0 type {}",
                                                       data_type_name(ctx.input(1).type()), data_type_name(type)));
  return type;
}

[[noreturn]] inline void fail_unsupported_type(const OpContext& ctx, std::string_view what, DataType type,
                                               std::string_view supported) {
  ctx.fail(fmt::format("{} type {} is not supported; supported: {}", what, data_type_name(type), supported));
}

// Fails unless input 0 and output 0 have the same type (the kernels that
// check this compute in that type).
inline void require_output_type_matches_input(const OpContext& ctx) {
  const DataType in = ctx.input(0).type();
  const DataType out = ctx.output(0).type();
  ctx.require(in == out, fmt::format("output type {} with {} input is not supported; the output must be {}",
                                     data_type_name(out), data_type_name(in), data_type_name(in)));
}

inline void require_same_element_count(const OpContext& ctx) {
  ctx.require(ctx.input(0).elements() == ctx.output(0).elements(),
              fmt::format("input has {} elements but output has {}", ctx.input(0).elements(),
                          ctx.output(0).elements()));
}

struct AffineQuantization {
  float scale = 1.0f;
  int32_t zero_point = 0;
};

// The per-tensor quantization of `t`; `what` names the operand in messages.
inline AffineQuantization affine_quantization(const OpContext& ctx, const TensorRef& t, std::string_view what) {
  const Quantization& q = t.tensor->quantization;
  ctx.require(!q.scale.empty(), fmt::format("{} ({}) has no quantization parameters", what, data_type_name(t.type())));
  AffineQuantization result;
  result.scale = q.scale[0];
  result.zero_point = q.zero_point.empty() ? 0 : static_cast<int32_t>(q.zero_point[0]);
  return result;
}

// The fused activation of ADD, SUB and MUL; none when the options are absent.
inline Activation elementwise_activation(const OpContext& ctx) {
  const auto* params = std::get_if<ElementwiseParams>(&ctx.op->params);
  return params ? params->activation : Activation::kNone;
}

// The clamp of an unquantized INT32 output (TFLite's CalculateActivationRange).
inline QuantizedRange int32_activation_range(Activation activation) {
  switch (activation) {
    case Activation::kRelu: return {0, std::numeric_limits<int32_t>::max()};
    case Activation::kRelu6: return {0, 6};
    case Activation::kReluN1To1: return {-1, 1};
    default: return {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
  }
}

inline int32_t clamp_to(int32_t value, int32_t low, int32_t high) { return std::min(std::max(value, low), high); }

// out[i] = f(in[i]) in flat order: each output element is stored right after
// the one input element it needs is loaded.
template <typename In, typename Out, class Memory, class F>
void map_elements(const KernelIO& io, Memory& mem, const F& f) {
  map_elements_loops<In, Out>(io, mem, io.output(0).elements(), f);
}

// A prepared element-wise kernel: `f` carries the prepared parameters (a
// lambda capturing them by value) and eval maps it over the elements.
template <typename In, typename Out, class F>
struct MapElementsKernel {
  F f;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    map_elements<In, Out>(io, mem, f);
  }
};

template <typename In, typename Out, class F>
PreparedKernel map_elements_kernel(F f) {
  return PreparedKernel::of(MapElementsKernel<In, Out, F>{std::move(f)});
}

}  // namespace dmo

// FLOOR_DIV and FLOOR_MOD, mirroring TFLM's floor_div.cc (FloorDivEval,
// EvalFloorDiv) and floor_mod.cc (Eval, EvalFloorMod) with TFLite's
// reference_ops::FloorDiv / FloorMod over BinaryFunction (same input shapes)
// or BroadcastBinaryFunction4DSlow: the output in row-major order, a then b
// loaded right before each store. FLOAT32 only, as TFLM registers them.
//  - FLOOR_DIV: floor(double(a) / double(b)) as a float. TFLM first reads
//    every divisor and refuses the invoke on a zero; dmo reads them in the
//    same pass but, its eval unable to fail, goes on with IEEE division.
//  - FLOOR_MOD: fmod(a, b), moved into b's sign when it is non-zero and of
//    the other sign.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include <fmt/format.h>

#include "../broadcast.h"
#include "../elementwise.h"
#include "dmo/ops/kernels.h"

namespace dmo {
namespace {

constexpr size_t kMaxBroadcastRank = 4;  // TFLM's BroadcastBinaryFunction4DSlow

float floor_div(float a, float b) {
  return static_cast<float>(std::floor(static_cast<double>(a) / static_cast<double>(b)));
}

float floor_mod(float a, float b) {
  const float trunc_mod = std::fmod(a, b);
  return trunc_mod != 0 && ((b < 0) != (trunc_mod < 0)) ? trunc_mod + b : trunc_mod;
}

// FLOOR_DIV's pass over the divisors, then the broadcast loop.
struct FloorDivKernel {
  BroadcastShape shape;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const TensorRef& divisors = io.input(1);
    for (int64_t i = 0; i < divisors.elements(); ++i) mem.template load<float>(divisors, i);
    broadcast_binary<float>(shape, io, mem, floor_div);
  }
};

void require_float_binary(const OpContext& ctx) {
  const DataType type = require_two_inputs_of_one_type(ctx);
  require_output_type_matches_input(ctx);
  if (type != DataType::kFloat32) fail_unsupported_type(ctx, "input", type, "FLOAT32");
  if (ctx.input(0).shape() != ctx.input(1).shape()) {
    const size_t rank = std::max({ctx.input(0).rank(), ctx.input(1).rank(), ctx.output(0).rank()});
    ctx.require(rank <= kMaxBroadcastRank,
                fmt::format("broadcasting supports up to {} dimensions, got {}", kMaxBroadcastRank, rank));
  }
}

}  // namespace

PreparedKernel prepare_floor_div(const OpContext& ctx) {
  require_float_binary(ctx);
  return PreparedKernel::of(
      FloorDivKernel{BroadcastShape(ctx, ctx.input(0).shape(), ctx.input(1).shape(), ctx.output(0).shape())});
}

PreparedKernel prepare_floor_mod(const OpContext& ctx) {
  require_float_binary(ctx);
  return broadcast_binary_kernel<float>(ctx, floor_mod);
}

}  // namespace dmo

// DEQUANTIZE: INT8 and INT16 (TFLite Micro) and UINT8 (TFLite) to FLOAT32,
// scale * (x - zero point) with a float scale, as reference/dequantize.h.
#include <cstdint>

#include "../elementwise.h"
#include "dmo/ops/kernel_instantiation.h"
#include "dmo/ops/kernels.h"

namespace dmo {
namespace {

template <typename In, class Memory>
void dequantize(const OpContext& ctx, Memory& mem) {
  const AffineQuantization q = affine_quantization(ctx, ctx.input(0), "input");
  map_elements<In, float>(ctx, mem, [q](In x) { return q.scale * static_cast<float>(x - q.zero_point); });
}

}  // namespace

template <class Memory>
void run_dequantize(const OpContext& ctx, Memory& mem) {
  require_operand_counts(ctx, 1, 1);
  require_same_element_count(ctx);
  const DataType out = ctx.output(0).type();
  if (out != DataType::kFloat32) fail_unsupported_type(ctx, "output", out, "FLOAT32");
  const DataType in = ctx.input(0).type();
  switch (in) {
    case DataType::kInt8: return dequantize<int8_t>(ctx, mem);
    case DataType::kUInt8: return dequantize<uint8_t>(ctx, mem);
    case DataType::kInt16: return dequantize<int16_t>(ctx, mem);
    default: fail_unsupported_type(ctx, "input", in, "INT8, UINT8, INT16");
  }
}

DMO_INSTANTIATE_KERNEL(run_dequantize);

}  // namespace dmo

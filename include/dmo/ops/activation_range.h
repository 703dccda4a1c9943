// Clamping ranges of fused activations, float and quantized, as TFLite
// computes them (the quantized bounds are the quantized 0, 6, -1, 1).
#pragma once

#include <cstdint>

#include "dmo/model/op_params.h"
#include "dmo/model/tensor.h"
#include "dmo/ops/eval/value_range.h"

namespace dmo {

FloatRange float_activation_range(Activation activation);

// For an output of type `type` (INT8, UINT8 or INT16) quantized per tensor.
QuantizedRange quantized_activation_range(Activation activation, const Tensor& output);

// Representable range of a quantized type.
QuantizedRange type_range(DataType type);

}  // namespace dmo

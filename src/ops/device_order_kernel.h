// The dmo-device kernel family (ops/kernel_family.h): an op with an int8
// device kernel (ops/eval/*_s8_device.h) runs it, in the order generated
// code runs it, under any memory policy; every other op keeps its
// reference kernel.
#pragma once

#include "dmo/ops/op_context.h"
#include "dmo/ops/prepared_kernel.h"

namespace dmo {

// `reference`, the op's prepared reference kernel, wrapped so that its
// eval runs the device kernel wherever generated code would.
PreparedKernel with_device_order(const OpContext& ctx, PreparedKernel reference);

}  // namespace dmo

// Maps an op kind to its kernel. Each kernel checks its own shapes and
// types and fails naming the op when it cannot run them.
#include <fmt/format.h>

#include "dmo/ops/kernel_instantiation.h"
#include "dmo/ops/kernels.h"
#include "dmo/runtime/interpreter.h"

namespace dmo {

template <class Memory>
void run_kernel(const OpContext& ctx, Memory& memory) {
  switch (static_cast<OpKind>(ctx.op->builtin_code)) {
    // Windowed and matrix ops.
    // Element-wise, activation, pooling and softmax ops.
    // Shape, copy and reduction ops.
    default:
      break;
  }
  ctx.fail(fmt::format("dmo has no kernel for this op (builtin code {})", ctx.op->builtin_code));
}

template void run_kernel<DirectMemory>(const OpContext&, DirectMemory&);
template void run_kernel<AddressMemory>(const OpContext&, AddressMemory&);
template void run_kernel<CheckingMemory>(const OpContext&, CheckingMemory&);

}  // namespace dmo

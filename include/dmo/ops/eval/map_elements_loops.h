// The loop nest of element-wise ops of one input: out[i] = f(in[i]) in
// flat order, each output element stored right after the one input element
// it needs is loaded (TFLM's loops for QUANTIZE, DEQUANTIZE and the unary
// ops). Freestanding: shared by the host kernels and generated code.
#pragma once

#include <cstdint>

namespace dmo {

template <typename In, typename Out, class IO, class Memory, class F>
void map_elements_loops(const IO& io, Memory& mem, int64_t elements, const F& f) {
  for (int64_t i = 0; i < elements; ++i) {
    mem.template store<Out>(io.output(0), i, f(mem.template load<In>(io.input(0), i)));
  }
}

}  // namespace dmo

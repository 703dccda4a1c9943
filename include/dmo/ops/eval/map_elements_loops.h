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

// The nest over a prepared tensor with its per-element arithmetic F (an
// aggregate of plain values), as one kernel: what generated code defines
// from the host kernel's fields and calls.
template <typename In, typename Out, class F>
struct MapElementsLoops {
  int64_t elements = 0;
  F f;

  template <class IO, class Memory>
  void eval(const IO& io, Memory& mem) const {
    map_elements_loops<In, Out>(io, mem, elements, f);
  }
  template <class G>
  void each_field(G&& g) const {
    g(elements), g(f);
  }
};

// The element itself: EXPAND_DIMS's copy, element by element.
template <typename T>
struct SameValue {
  T operator()(T x) const { return x; }
  template <class G>
  void each_field(G&&) const {}
};

}  // namespace dmo

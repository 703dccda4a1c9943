// CONCATENATION's and SPLIT's loop nests, as TFLM's reference kernels run
// them: per index of the dimensions before the axis, each input's (or
// output's) block along the axis and after it in turn. CONCATENATION
// copies each block at once (reference_ops::Concatenation: one memcpy per
// block, an ops/block_copy.h copy here); SPLIT moves its blocks element by
// element (reference's Split: a loop of loads and stores). U is an
// unsigned type of the element's width. Freestanding: shared by the host
// kernels and generated device code.
#pragma once

#include <cstdint>

namespace dmo {

template <typename U, class IO, class Memory>
void concatenation_loops(const IO& io, Memory& mem, int64_t outer, const int64_t* blocks, int32_t inputs) {
  int64_t out = 0;
  for (int64_t k = 0; k < outer; ++k) {
    for (int32_t i = 0; i < inputs; ++i) {
      mem.template copy<U>(io.output(0), out, io.input(i), k * blocks[i], blocks[i]);
      out += blocks[i];
    }
  }
}

// The split tensor is input `source` (SPLIT's input 1; its input 0 is the axis).
template <typename U, class IO, class Memory>
void split_loops(const IO& io, Memory& mem, int64_t outer, int64_t block, int32_t source, int32_t outputs) {
  int64_t in = 0;
  for (int64_t k = 0; k < outer; ++k) {
    for (int32_t i = 0; i < outputs; ++i) {
      for (int64_t j = 0; j < block; ++j) {
        mem.template store<U>(io.output(i), k * block + j, mem.template load<U>(io.input(source), in++));
      }
    }
  }
}

}  // namespace dmo

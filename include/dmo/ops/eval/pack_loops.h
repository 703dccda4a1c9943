// PACK's and UNPACK's loop nests, as TFLM's PackImpl and UnpackImpl walk
// them: tensor by tensor (each input of PACK, each output of UNPACK), for
// each outer index (the axes before `axis`), that tensor's next run of
// `run` elements copied element by element from or to its slot of the
// stacked tensor, each load right before its store.
// Freestanding: the host kernels and generated code run these nests.
#pragma once

#include <cstdint>

namespace dmo {

// U is the element's width as an unsigned type.
template <typename U>
struct PackLoops {
  int32_t count = 0;  // the inputs
  int64_t outer = 1, run = 1;

  template <class IO, class Memory>
  void eval(const IO& io, Memory& mem) const {
    const auto& output = io.output(0);
    for (int32_t i = 0; i < count; ++i) {
      const auto& input = io.input(i);
      for (int64_t k = 0; k < outer; ++k) {
        const int64_t to = (k * count + i) * run;
        for (int64_t j = 0; j < run; ++j) mem.template store<U>(output, to + j, mem.template load<U>(input, k * run + j));
      }
    }
  }
  template <class F>
  void each_field(F&& f) const {
    f(count), f(outer), f(run);
  }
};

template <typename U>
struct UnpackLoops {
  int32_t count = 0;  // the outputs
  int64_t outer = 1, run = 1;

  template <class IO, class Memory>
  void eval(const IO& io, Memory& mem) const {
    const auto& input = io.input(0);
    for (int32_t i = 0; i < count; ++i) {
      const auto& output = io.output(i);
      for (int64_t k = 0; k < outer; ++k) {
        const int64_t from = (k * count + i) * run;
        for (int64_t j = 0; j < run; ++j) mem.template store<U>(output, k * run + j, mem.template load<U>(input, from + j));
      }
    }
  }
  template <class F>
  void each_field(F&& f) const {
    f(count), f(outer), f(run);
  }
};

}  // namespace dmo

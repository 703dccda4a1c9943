// GATHER's loop nest, as TFLM's Gather<InputT, CoordsT> walks it: for each
// batch, outer index and position, the position is loaded from the
// indices, checked against the axis, and the addressed run of the input
// (the axes after `axis`) is copied to the next run of the output in one
// copy (TFLM's memcpy; the memory policy's copy, whose order is
// unspecified). An index outside the axis goes to `outside(index, at)`
// (`at`: its element of the indices): the host stops the op with an error
// (a checked run after a clobber skips the position instead), generated
// code stops the program (DeviceMemory::stop).
// Freestanding: the host kernel and generated code run this nest.
#pragma once

#include <cstdint>

namespace dmo {

// What the nest walks, whatever the element type.
struct GatherShape {
  int32_t op = 0;  // the op's index, for the device's error line
  int64_t batches = 1, outer = 1, positions = 1, inner = 1, axis_size = 0;

  template <class F>
  void each_field(F&& f) const {
    f(op), f(batches), f(outer), f(positions), f(inner), f(axis_size);
  }
};

// U is the element's width as an unsigned type.
template <typename U>
struct GatherLoops {
  GatherShape shape;

  template <class IO, class Memory, class Outside>
  void eval(const IO& io, Memory& mem, Outside&& outside) const {
    const auto [op, batches, outer, positions, inner, axis_size] = shape;
    const auto& input = io.input(0);
    const auto& indices = io.input(1);
    const auto& output = io.output(0);
    for (int64_t batch = 0; batch < batches; ++batch) {
      for (int64_t o = 0; o < outer; ++o) {
        const int64_t run = batch * outer + o;
        for (int64_t p = 0; p < positions; ++p) {
          const int64_t at = batch * positions + p;
          const int32_t index = mem.template load<int32_t>(indices, at);
          if (index < 0 || index >= axis_size) {
            outside(index, at);
            continue;
          }
          mem.template copy<U>(output, (run * positions + p) * inner, input, (run * axis_size + index) * inner,
                               inner);
        }
      }
    }
  }

  // Generated code's: an index outside the axis stops the program.
  template <class IO, class Memory>
  void eval(const IO& io, Memory& mem) const {
    eval(io, mem, [&](int32_t, int64_t) { mem.stop(shape.op, "GATHER", "an index is outside the gathered axis"); });
  }

  template <class F>
  void each_field(F&& f) const {
    f(shape);
  }
};

}  // namespace dmo

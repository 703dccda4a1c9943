// How dmo's int8 device kernels read their activation inputs and write
// their output: through an access object, so that the order of those
// accesses, the part of a kernel a plan's safe overlap depends on, can be
// observed. DirectAccess (the default, and what generated code runs) is the
// plain load and store; on the host, ops/device_order_access.h forwards
// each access to a memory policy, so the address-only policy folds the
// device kernel's own order into its O_s and the checking policy checks
// it. Loads of weights, tables and scratch buffers are not activations and
// stay plain. Freestanding.
#pragma once

#include <cstdint>

#include "dmo/ops/eval/dsp_intrinsics.h"

namespace dmo {

struct DirectAccess {
  // Element `at` of input `input` (0 or 1).
  int8_t load(int32_t /*input*/, const int8_t* at) const { return *at; }
  // Four adjacent elements from `at`, as one little-endian word.
  uint32_t load_word(int32_t /*input*/, const int8_t* at) const { return dsp::load_word(at); }
  // Element `at` of output 0.
  void store(int8_t* at, int8_t value) const { *at = value; }
};

}  // namespace dmo

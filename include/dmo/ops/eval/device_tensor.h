// What generated device code (dmo codegen) hands the shared loop nests: a
// tensor reference and a kernel's operands as plain constant data (no
// dmo::Tensor, no heap), and the memory policy that executes them. They
// mirror ops/tensor_ref.h and ops/kernel_io.h member for member, so a loop
// nest indexes both alike; DeviceMemory is DirectMemory on them.
#pragma once

#include <cstdint>

#include "dmo/ops/eval/direct_memory.h"
#include "dmo/ops/eval/value_range.h"
#include "dmo/ops/fixed_point.h"
#include "dmo/ops/output_region.h"

// Defined by generated code's platform.cc (DeviceMemory::stop).
[[noreturn]] void dmo_stop(int32_t op, const char* kind, const char* what);

namespace dmo {

struct DeviceTensor {
  uint8_t* data = nullptr;         // first element; nullptr for an omitted operand
  const int32_t* dims = nullptr;   // the shape
  int32_t rank_ = 0;
  int64_t elements_ = 0;
  int64_t bytes = 0;
  // Per dimension, the distance in elements between neighbours in storage;
  // nullptr for a dense tensor (a split stage's band has its own).
  const int64_t* strides = nullptr;
  int32_t index = -1;  // the model's tensor index (loop nests compare operands)

  int32_t dim(int32_t i) const { return dims[i]; }
  int32_t rank() const { return rank_; }
  int64_t elements() const { return elements_; }
  int64_t byte_size() const { return bytes; }

  // Where element `i` of the dense row-major order is stored, in elements from `data`.
  int64_t storage_index(int64_t i) const {
    if (strides == nullptr) return i;
    int64_t at = 0;
    for (int32_t d = rank_; d-- > 0;) {
      const int64_t extent = dims[d];
      at += (i % extent) * strides[d];
      i /= extent;
    }
    return at;
  }
};

struct DeviceKernelIO {
  const DeviceTensor* inputs = nullptr;
  int32_t input_count = 0;
  const DeviceTensor* outputs = nullptr;
  int32_t output_count = 0;
  bool descending = false;
  OutputRegion region;

  const DeviceTensor& input(int32_t i) const { return inputs[i]; }
  const DeviceTensor& output(int32_t i) const { return outputs[i]; }
  bool has_input(int32_t i) const { return i < input_count && inputs[i].data != nullptr; }
};

// DirectMemory's loads, stores and copies on DeviceTensors, and the stop
// of a nest that meets data it cannot run on (an index outside its axis):
// generated code's platform prints "error: op OP (KIND): WHAT" and ends
// the program with status 2, as `dmo run` fails on the same data.
struct DeviceMemory : BasicDirectMemory<DeviceTensor> {
  [[noreturn]] void stop(int32_t op, const char* kind, const char* what) const { ::dmo_stop(op, kind, what); }
};

// A conv-like op's requantization (QuantizedConvArithmetic reads it) with
// its per-channel multipliers in a constant array.
struct DeviceConvRequantization {
  struct Multipliers {
    const QuantizedMultiplier* values;
    const QuantizedMultiplier* data() const { return values; }
  };
  int32_t input_offset = 0;
  int32_t filter_offset = 0;
  int32_t output_offset = 0;
  Multipliers multipliers{nullptr};
  QuantizedRange range{0, 0};
};

}  // namespace dmo

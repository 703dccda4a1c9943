// dmo's int8 ADD for devices, for inputs of the output's shape (no
// broadcast): the reference nest's order (broadcast_loops.h: per element,
// load both inputs, store) with pointers instead of an element index per
// access, so its safe overlap is the reference's; TFLite's arithmetic
// (add_sub_arithmetic.h) with the device multiplier. Freestanding.
#pragma once

#include <cstdint>

#include "dmo/ops/eval/add_sub_arithmetic.h"
#include "dmo/ops/eval/broadcast_loops.h"
#include "dmo/ops/eval/device_access.h"
#include "dmo/ops/eval/device_requantize.h"

namespace dmo {

// Whether add_s8_device computes this op: no broadcast, dense operands.
template <class IO>
bool add_s8_device_applies(const BroadcastLayout& shape, const IO& io) {
  return shape.flat_ && io.input(0).strides == nullptr && io.input(1).strides == nullptr &&
         io.output(0).strides == nullptr && io.input(0).elements() == io.output(0).elements() &&
         io.input(1).elements() == io.output(0).elements();
}

template <class IO, class Access = DirectAccess>
void add_s8_device(const AddSubRequantization& q, const IO& io, Access access = {}) {
  const auto* a = reinterpret_cast<const int8_t*>(io.input(0).data);
  const auto* b = reinterpret_cast<const int8_t*>(io.input(1).data);
  auto* out = reinterpret_cast<int8_t*>(io.output(0).data);
  const int64_t n = io.output(0).elements();
  const DeviceMultiplier m1(q.input1), m2(q.input2), mo(q.output);
  const int32_t offset1 = q.input1_offset, offset2 = q.input2_offset, output_offset = q.output_offset;
  const int32_t shift = q.left_shift, lo = q.range.min, hi = q.range.max;
  for (int64_t i = 0; i < n; ++i) {
    const int32_t x = m1(static_cast<int32_t>(static_cast<uint32_t>(access.load(0, a + i) + offset1) << shift));
    const int32_t y = m2(static_cast<int32_t>(static_cast<uint32_t>(access.load(1, b + i) + offset2) << shift));
    int32_t sum = mo(static_cast<int32_t>(static_cast<uint32_t>(x) + static_cast<uint32_t>(y))) + output_offset;
    sum = sum < lo ? lo : sum;
    sum = sum > hi ? hi : sum;
    access.store(out + i, static_cast<int8_t>(sum));
  }
}

}  // namespace dmo

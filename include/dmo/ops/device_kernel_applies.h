// Whether one of dmo's int8 device kernels (ops/eval/*_s8_device.h) computes
// a step of an op: decided once for generated code (dmo codegen) and for
// the dmo-device kernel family on the host, so both run the same kernel on
// the same steps. A conv-like kernel also needs its op's stage table
// (ops/device_channel_stages.h), which the caller builds.
#pragma once

#include "dmo/ops/device_kernel.h"
#include "dmo/ops/eval/add_s8_device.h"
#include "dmo/ops/eval/average_pool_s8_device.h"
#include "dmo/ops/eval/conv_s8_device.h"
#include "dmo/ops/eval/depthwise_s8_device.h"
#include "dmo/ops/eval/fully_connected_s8_device.h"

namespace dmo {

// CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED: a table of per-channel
// output stages.
inline bool device_kernel_is_conv_like(const DeviceKernel& k) {
  return k.loops == DeviceLoops::kConv || k.loops == DeviceLoops::kDepthwiseConv ||
         k.loops == DeviceLoops::kFullyConnected;
}

// Whether `k`'s int8 device kernel computes the step with operands `io`
// (int8, channels adjacent in storage).
template <class IO>
bool device_kernel_applies(const DeviceKernel& k, const IO& io) {
  if (k.type != DataType::kInt8) return false;
  switch (k.loops) {
    case DeviceLoops::kConv: return conv_s8_device_applies(k.conv, io);
    case DeviceLoops::kDepthwiseConv: return depthwise_s8_device_applies(k.depthwise, io);
    case DeviceLoops::kFullyConnected: return fully_connected_s8_device_applies(io);
    case DeviceLoops::kAveragePool: return average_pool_s8_device_applies(io);
    case DeviceLoops::kAdd: return add_s8_device_applies(k.broadcast, io);
    default: return false;
  }
}

}  // namespace dmo

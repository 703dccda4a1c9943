// What generated device code (dmo codegen) needs to run a prepared kernel:
// which shared loop nest (ops/eval/), the element type and the prepared
// state as plain values. The kernels that have a device path set it in
// prepare; it is absent for every other kernel.
#pragma once

#include <cstdint>
#include <vector>

#include "dmo/model/data_type.h"
#include "dmo/ops/eval/add_sub_arithmetic.h"
#include "dmo/ops/eval/broadcast_loops.h"
#include "dmo/ops/eval/conv_loops.h"
#include "dmo/ops/eval/depthwise_loops.h"
#include "dmo/ops/eval/fully_connected_loops.h"
#include "dmo/ops/eval/pool_loops.h"
#include "dmo/ops/eval/softmax_loops.h"
#include "dmo/ops/eval/value_range.h"
#include "dmo/ops/fixed_point.h"

namespace dmo {

enum class DeviceLoops { kConv, kDepthwiseConv, kAveragePool, kFullyConnected, kSoftmax, kAdd, kCopy };

// A conv-like op's requantization, its multipliers owned.
struct DeviceRequantization {
  int32_t input_offset = 0, filter_offset = 0, output_offset = 0;
  std::vector<QuantizedMultiplier> multipliers;  // per output channel
  QuantizedRange range{0, 0};
};

struct DeviceKernel {
  DeviceLoops loops = DeviceLoops::kCopy;
  DataType type = DataType::kInt8;  // the element type the nest runs on
  ConvGeometry conv;                          // kConv
  DepthwiseGeometry depthwise;                // kDepthwiseConv
  FullyConnectedGeometry fully_connected;     // kFullyConnected
  DeviceRequantization requantization;        // kConv, kDepthwiseConv, kFullyConnected
  PoolGeometry pool;                          // kAveragePool
  QuantizedRange pool_range{0, 0};            // kAveragePool
  SoftmaxRows softmax_rows;                   // kSoftmax
  SoftmaxScaling softmax_scaling;             // kSoftmax
  BroadcastLayout broadcast;                  // kAdd
  AddSubRequantization add;                   // kAdd
  int64_t copy_elements = 0;                  // kCopy
  int32_t copy_element_bytes = 1;             // kCopy
};

}  // namespace dmo

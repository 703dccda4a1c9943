// What generated device code (dmo codegen) needs to run a prepared kernel:
// which shared loop nest (ops/eval/), the element type and the prepared
// state as plain values. The kernels that have a device path set it in
// prepare; it is absent for every other kernel.
#pragma once

#include <cstdint>
#include <vector>

#include "dmo/model/data_type.h"
#include "dmo/ops/device_instance.h"
#include "dmo/ops/eval/add_sub_arithmetic.h"
#include "dmo/ops/eval/block_copy_loops.h"
#include "dmo/ops/eval/broadcast_loops.h"
#include "dmo/ops/eval/conv_loops.h"
#include "dmo/ops/eval/depthwise_loops.h"
#include "dmo/ops/eval/fully_connected_loops.h"
#include "dmo/ops/eval/map_elements_loops.h"
#include "dmo/ops/eval/mul_arithmetic.h"
#include "dmo/ops/eval/pool_loops.h"
#include "dmo/ops/eval/quantize_arithmetic.h"
#include "dmo/ops/eval/softmax_loops.h"
#include "dmo/ops/eval/value_range.h"
#include "dmo/ops/fixed_point.h"

namespace dmo {

enum class DeviceLoops { kConv, kDepthwiseConv, kAveragePool, kMaxPool, kFullyConnected, kSoftmax, kAdd, kMul, kCopy, kConcatenation, kSplit, kQuantize, kDequantize, kInstance };

// A conv-like op's requantization, its multipliers owned.
struct DeviceRequantization {
  int32_t input_offset = 0, filter_offset = 0, output_offset = 0;
  std::vector<QuantizedMultiplier> multipliers;  // per output channel
  QuantizedRange range{0, 0};
};

// QUANTIZE's and DEQUANTIZE's per-element arithmetic (quantize_arithmetic.h):
// float in, AffineQuantize; integer in, Requantize; float out, Dequantize.
struct DeviceElementMap {
  DataType input = DataType::kFloat32, output = DataType::kInt8;
  int64_t elements = 0;
  float scale = 1.0f;  // AffineQuantize: the output's; Dequantize: the input's
  int32_t input_zero_point = 0, output_zero_point = 0;
  QuantizedMultiplier multiplier;  // Requantize: input scale / output scale
};

struct DeviceKernel {
  DeviceLoops loops = DeviceLoops::kCopy;
  DataType type = DataType::kInt8;  // the element type the nest runs on
  ConvGeometry conv;                          // kConv
  DepthwiseGeometry depthwise;                // kDepthwiseConv
  FullyConnectedGeometry fully_connected;     // kFullyConnected
  DeviceRequantization requantization;        // kConv, kDepthwiseConv, kFullyConnected
  PoolGeometry pool;                          // kAveragePool, kMaxPool
  QuantizedRange pool_range{0, 0};            // kAveragePool, kMaxPool (int8, uint8)
  FloatRange float_range{0, 0};               // FLOAT32 conv-like ops, pools, kAdd and kMul
  SoftmaxRows softmax_rows;                   // kSoftmax
  SoftmaxScaling softmax_scaling;             // kSoftmax (int8, uint8)
  float softmax_beta = 1.0f;                  // kSoftmax (FLOAT32)
  BroadcastLayout broadcast;                  // kAdd, kMul
  AddSubRequantization add;                   // kAdd (int8, uint8)
  MulRequantization mul;                      // kMul (int8, uint8)
  int64_t copy_elements = 0;                  // kCopy
  int32_t copy_element_bytes = 1;             // kCopy, kConcatenation, kSplit
  int64_t copy_outer = 1;                     // kConcatenation, kSplit: the blocks' outer count
  std::vector<int64_t> copy_blocks;           // kConcatenation: per input; kSplit: one, every output's
  DeviceElementMap element_map;               // kQuantize, kDequantize
  DeviceInstance instance;                    // kInstance
};

}  // namespace dmo

// MobileNet v1 and v2 built in code, in the TF-slim / Keras layouts of the
// MobileNets TFLite hosts, with deterministic weights (no file is read). The
// weights are random but well scaled, so the graphs are valid inputs for
// memory planning and for anything else that reads tensors and ops.
#pragma once

#include <string>

#include "dmo/model/data_type.h"
#include "dmo/model/graph.h"

namespace dmo {

struct MobileNetConfig {
  int version = 1;        // 1 or 2
  double alpha = 1.0;     // width multiplier, in (0, 4]
  int resolution = 224;   // input height and width, in [32, 1024]
  DataType type = DataType::kFloat32;  // kFloat32, kInt8 or kUInt8
};

// The zoo name of a configuration: "mobilenet_v1_0.25_128_int8". Whole
// alphas keep one decimal ("1.0") as the hosted model names do.
std::string mobilenet_name(const MobileNetConfig& config);

// One subgraph "main", batch 1, NHWC; input "input", output the softmax.
// The graph's source is mobilenet_name(config). Throws dmo::Error on a config
// out of the ranges above.
Graph build_mobilenet(const MobileNetConfig& config);

}  // namespace dmo

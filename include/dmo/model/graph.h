// The imported model: subgraphs of tensors and ops in execution order.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dmo/model/op_kind.h"
#include "dmo/model/op_params.h"
#include "dmo/model/tensor.h"

namespace dmo {

// Marks an omitted optional input (e.g. a missing bias).
constexpr int32_t kNoTensor = -1;

struct Op {
  int32_t builtin_code = 0;   // max(deprecated_builtin_code, builtin_code)
  std::string custom_code;    // for CUSTOM ops
  // A CUSTOM op's options as the file holds them (a FlexBuffer map for
  // TFLM's signal ops; read by ops/custom_options.h).
  std::vector<uint8_t> custom_options;
  int32_t version = 1;
  std::vector<int32_t> inputs;   // tensor indices, kNoTensor for omitted
  std::vector<int32_t> outputs;
  OpParams params;
  // Builtin options the file carried for this op but dmo does not decode.
  bool has_undecoded_options = false;

  bool is(OpKind kind) const { return builtin_code == static_cast<int32_t>(kind); }
  std::string name() const;  // "CONV_2D", or the custom code for CUSTOM
};

struct Subgraph {
  std::string name;
  std::vector<Tensor> tensors;
  std::vector<Op> ops;  // execution order
  std::vector<int32_t> inputs;
  std::vector<int32_t> outputs;
};

struct MetadataEntry {
  std::string name;
  uint32_t buffer_index = 0;
  // Its buffer's bytes (a writer keeps them; the offline plan's are
  // Graph::offline_plan's words instead).
  std::vector<uint8_t> data;
};

// TFLM's OfflineMemoryAllocation metadata: one offset per tensor over all
// subgraphs (subgraph 0 first), -1 where TFLM plans the tensor itself.
struct OfflinePlan {
  int32_t version = 0;
  int32_t subgraph_count = 0;
  std::vector<int32_t> offsets;
};

struct Graph {
  std::string source;  // file name or zoo name, for messages
  uint32_t version = 0;
  std::string description;
  std::vector<Subgraph> subgraphs;
  std::vector<MetadataEntry> metadata;
  std::optional<OfflinePlan> offline_plan;

  const Subgraph& main() const { return subgraphs.front(); }
  size_t total_tensor_count() const;
};

}  // namespace dmo

#include "dmo/plan/tflm_tail.h"

#include <fmt/format.h>

namespace dmo {

namespace {

// sizeof / alignof on a 32-bit Arm target (TF_LITE_STATIC_MEMORY), at the
// TFLM commit dmo mirrors.
constexpr PersistentRequest kArenaAllocator{36, 4};    // SingleArenaBufferAllocator
constexpr PersistentRequest kGreedyPlanner{44, 4};     // GreedyMemoryPlanner
constexpr PersistentRequest kMicroAllocator{36, 4};    // MicroAllocator
constexpr PersistentRequest kBuiltinAllocator{8, 4};   // MicroBuiltinDataAllocator
constexpr int64_t kSubgraphAllocationsBytes = 8;       // SubgraphAllocations
constexpr int64_t kEvalTensorBytes = 12;               // TfLiteEvalTensor
constexpr int64_t kNodeAndRegistrationBytes = 32;      // TfLiteNode + registration pointer
constexpr int64_t kTfLiteTensorBytes = 32;             // TfLiteTensor
constexpr int64_t kAffineQuantizationBytes = 12;       // TfLiteAffineQuantization
constexpr int64_t kScratchHandleBytes = 4;             // ScratchBufferHandle
constexpr int64_t kPointerBytes = 4;
constexpr int64_t kArenaAlignment = 16;                // MicroArenaBufferAlignment()

// The tail pointer, counted down from the arena's (16-aligned) end.
class Tail {
 public:
  // Takes `r` as SingleArenaBufferAllocator::AllocatePersistentBuffer does;
  // returns the bytes the tail grew by.
  int64_t take(PersistentRequest r) {
    const int64_t before = used_;
    const int64_t low = used_ + r.bytes;  // distance of the new start below the end
    used_ = (low + r.alignment - 1) / r.alignment * r.alignment;
    return used_ - before;
  }
  int64_t take_all(const std::vector<PersistentRequest>& requests) {
    int64_t grew = 0;
    for (const PersistentRequest& r : requests) grew += take(r);
    return grew;
  }
  int64_t used() const { return used_; }

 private:
  int64_t used_ = 0;
};

// The interpreter's persistent TfLiteTensor for a graph input or output:
// the struct, and its quantization copied out of the flatbuffer (the zero
// points as an int array; the scales stay in the file).
int64_t take_io_tensor(Tail& tail, const Tensor& tensor) {
  int64_t grew = tail.take({kTfLiteTensorBytes, 4});
  const Quantization& q = tensor.quantization;
  if (!q.scale.empty() && !q.zero_point.empty()) {
    grew += tail.take({kAffineQuantizationBytes, 4});
    grew += tail.take({4 + 4 * static_cast<int64_t>(q.scale.size()), 4});
  }
  return grew;
}

bool placed_offline(const std::optional<OfflinePlan>& offline, size_t flat_index) {
  return offline && flat_index < offline->offsets.size() && offline->offsets[flat_index] >= 0;
}

}  // namespace

std::optional<TflmTail> predict_tflm_tail(const Graph& graph, TailKernels kernels, int64_t scratch_requests,
                                          const std::optional<OfflinePlan>& offline, std::string* unknown_op) {
  // Every op's allocations first: one unknown kernel leaves no figure.
  std::vector<std::vector<OpPersistent>> ops(graph.subgraphs.size());
  for (size_t s = 0; s < graph.subgraphs.size(); ++s) {
    const Subgraph& sg = graph.subgraphs[s];
    for (size_t i = 0; i < sg.ops.size(); ++i) {
      std::optional<OpPersistent> op = tflm_op_persistent(sg, static_cast<int32_t>(i), kernels);
      if (!op) {
        if (unknown_op) *unknown_op = fmt::format("subgraph {} op {} ({})", s, i, sg.ops[i].name());
        return std::nullopt;
      }
      ops[s].push_back(std::move(*op));
    }
  }

  TflmTail t;
  Tail tail;
  // MicroInterpreter's constructor: MicroAllocator::Create.
  t.runtime_bytes += tail.take(kArenaAllocator);
  t.runtime_bytes += tail.take(kGreedyPlanner);
  t.runtime_bytes += tail.take(kMicroAllocator);
  // AllocateTensors: StartModelAllocation.
  t.runtime_bytes += tail.take(kBuiltinAllocator);
  t.runtime_bytes += tail.take({kSubgraphAllocationsBytes * static_cast<int64_t>(graph.subgraphs.size()), 4});
  for (const Subgraph& sg : graph.subgraphs) {
    t.tensor_bytes += tail.take({kEvalTensorBytes * static_cast<int64_t>(sg.tensors.size()), 4});
  }
  for (const Subgraph& sg : graph.subgraphs) {
    t.node_bytes += tail.take({kNodeAndRegistrationBytes * static_cast<int64_t>(sg.ops.size()), 4});
  }
  // Builtin options of every op, then every kernel's Init, then Prepare.
  for (const std::vector<OpPersistent>& sg : ops) {
    for (const OpPersistent& op : sg) t.node_bytes += tail.take_all(op.params);
  }
  for (const std::vector<OpPersistent>& sg : ops) {
    for (const OpPersistent& op : sg) t.kernel_bytes += tail.take_all(op.init);
  }
  for (const std::vector<OpPersistent>& sg : ops) {
    for (const OpPersistent& op : sg) t.kernel_bytes += tail.take_all(op.prepare);
  }
  // FinishModelAllocation: scratch buffer handles, then the variable
  // tensors the file's offline plan does not place.
  if (scratch_requests > 0) t.scratch_handle_bytes += tail.take({kScratchHandleBytes * scratch_requests, 4});
  size_t flat = 0;
  for (const Subgraph& sg : graph.subgraphs) {
    for (const Tensor& tensor : sg.tensors) {
      if (tensor.is_variable && !placed_offline(offline, flat)) {
        t.variable_bytes += tail.take({tensor.byte_size, kArenaAlignment});
      }
      ++flat;
    }
  }
  // The interpreter's input and output tensors (subgraph 0).
  const Subgraph& main = graph.main();
  t.tensor_bytes += tail.take({kPointerBytes * static_cast<int64_t>(main.inputs.size()), kArenaAlignment});
  for (int32_t i : main.inputs) t.tensor_bytes += take_io_tensor(tail, main.tensors[static_cast<size_t>(i)]);
  t.tensor_bytes += tail.take({kPointerBytes * static_cast<int64_t>(main.outputs.size()), kArenaAlignment});
  for (int32_t i : main.outputs) t.tensor_bytes += take_io_tensor(tail, main.tensors[static_cast<size_t>(i)]);
  t.bytes = tail.used();
  return t;
}

}  // namespace dmo

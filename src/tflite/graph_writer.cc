#include "dmo/tflite/graph_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "dmo/error.h"
#include "dmo/tflite/offline_plan.h"
#include "tflite_subset_generated.h"

namespace dmo {

namespace {

namespace fb = ::dmo::tfl;
using flatbuffers::FlatBufferBuilder;
using flatbuffers::Offset;

// TFLite aligns buffer data to 16 bytes (the schema's force_align).
constexpr size_t kBufferAlignment = 16;
// deprecated_builtin_code of every op whose code does not fit in int8.
constexpr int32_t kPlaceholderForGreaterOpCodes = 127;
// Constants beyond this leave no room below flatbuffers' 2 GB limit.
constexpr uint64_t kMaxDataBytes = (uint64_t{1} << 31) - (uint64_t{1} << 24);

struct Options {
  fb::BuiltinOptions type = fb::BuiltinOptions_NONE;
  Offset<void> table = 0;
};

class GraphWriter {
 public:
  explicit GraphWriter(const Graph& graph) : graph_(graph) {}

  std::vector<uint8_t> run() {
    collect_buffer_data();
    // Buffer data first: large and aligned, they sit at the end of the file.
    std::vector<Offset<fb::Buffer>> buffers;
    for (const std::vector<uint8_t>* data : buffer_data_) {
      if (!data || data->empty()) {
        buffers.push_back(fb::CreateBuffer(b_));
        continue;
      }
      b_.ForceVectorAlignment(data->size(), 1, kBufferAlignment);
      buffers.push_back(fb::CreateBuffer(b_, b_.CreateVector(*data)));
    }
    std::vector<Offset<fb::SubGraph>> subgraphs;
    for (size_t s = 0; s < graph_.subgraphs.size(); ++s) subgraphs.push_back(write_subgraph(s));
    auto codes = b_.CreateVector(codes_);
    auto subgraph_vector = b_.CreateVector(subgraphs);
    auto description = graph_.description.empty() ? 0 : b_.CreateString(graph_.description);
    auto buffer_vector = b_.CreateVector(buffers);
    Offset<flatbuffers::Vector<Offset<fb::Metadata>>> metadata = 0;
    if (!metadata_.empty()) {
      std::vector<Offset<fb::Metadata>> entries;
      for (const auto& [name, buffer] : metadata_) {
        entries.push_back(fb::CreateMetadata(b_, b_.CreateString(name), buffer));
      }
      metadata = b_.CreateVector(entries);
    }
    auto model = fb::CreateModel(b_, graph_.version, codes, subgraph_vector, description, buffer_vector, 0, metadata);
    fb::FinishModelBuffer(b_, model);
    return {b_.GetBufferPointer(), b_.GetBufferPointer() + b_.GetSize()};
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw Error(fmt::format("{}: cannot write as .tflite: {}", graph_.source, what));
  }

  // One buffer per index the graph uses; constants sharing a buffer must
  // agree, activations must not share one with a constant (they would read
  // back as constants).
  void collect_buffer_data() {
    size_t count = 1;
    for (const Subgraph& subgraph : graph_.subgraphs) {
      for (const Tensor& tensor : subgraph.tensors) {
        if (tensor.buffer_index < 0) fail(fmt::format("tensor '{}' has buffer index {}", tensor.name, tensor.buffer_index));
        count = std::max(count, static_cast<size_t>(tensor.buffer_index) + 1);
      }
    }
    for (const MetadataEntry& entry : graph_.metadata) count = std::max(count, size_t{entry.buffer_index} + 1);
    buffer_data_.assign(count, nullptr);
    std::vector<std::string> owner(count);
    auto claim = [&](size_t index, const std::vector<uint8_t>* data, const std::string& who) {
      if (index == 0 && !data->empty()) fail(fmt::format("{} holds data in buffer 0, the empty sentinel", who));
      if (buffer_data_[index] && *buffer_data_[index] != *data) {
        fail(fmt::format("{} and {} share buffer {} but hold different bytes", owner[index], who, index));
      }
      buffer_data_[index] = data;
      owner[index] = who;
    };
    for (const Subgraph& subgraph : graph_.subgraphs) {
      for (const Tensor& tensor : subgraph.tensors) {
        claim(static_cast<size_t>(tensor.buffer_index), &tensor.data, fmt::format("tensor '{}'", tensor.name));
      }
    }
    if (graph_.offline_plan) plan_words_ = encode_offline_plan(*graph_.offline_plan);
    bool plan_written = false;
    for (const MetadataEntry& entry : graph_.metadata) {
      if (entry.name != kOfflinePlanMetadataName || !graph_.offline_plan) {
        fail(fmt::format("metadata '{}': its bytes are not part of the graph", entry.name));
      }
      claim(entry.buffer_index, &plan_words_, fmt::format("metadata '{}'", entry.name));
      metadata_.emplace_back(entry.name, entry.buffer_index);
      plan_written = true;
    }
    if (graph_.offline_plan && !plan_written) {
      buffer_data_.push_back(&plan_words_);
      metadata_.emplace_back(kOfflinePlanMetadataName, static_cast<uint32_t>(buffer_data_.size() - 1));
    }
    uint64_t data_bytes = 0;
    for (const std::vector<uint8_t>* data : buffer_data_) data_bytes += data ? data->size() + kBufferAlignment : 0;
    if (data_bytes >= kMaxDataBytes) {
      fail(fmt::format("its constants take {} bytes, more than a flatbuffer can hold", data_bytes));
    }
  }

  uint32_t opcode_index(const Op& op) {
    auto key = std::make_tuple(op.builtin_code, op.custom_code, op.version);
    auto found = code_index_.find(key);
    if (found != code_index_.end()) return found->second;
    auto deprecated = static_cast<int8_t>(std::min(op.builtin_code, kPlaceholderForGreaterOpCodes));
    auto custom = op.custom_code.empty() ? 0 : b_.CreateString(op.custom_code);
    codes_.push_back(fb::CreateOperatorCode(b_, deprecated, custom, op.version, op.builtin_code));
    auto index = static_cast<uint32_t>(codes_.size() - 1);
    code_index_.emplace(key, index);
    return index;
  }

  Offset<fb::SubGraph> write_subgraph(size_t s) {
    const Subgraph& subgraph = graph_.subgraphs[s];
    std::vector<Offset<fb::Tensor>> tensors;
    for (const Tensor& tensor : subgraph.tensors) tensors.push_back(write_tensor(tensor));
    std::vector<Offset<fb::Operator>> ops;
    for (size_t i = 0; i < subgraph.ops.size(); ++i) ops.push_back(write_op(s, i, subgraph.ops[i]));
    return fb::CreateSubGraph(b_, b_.CreateVector(tensors), b_.CreateVector(subgraph.inputs),
                              b_.CreateVector(subgraph.outputs), b_.CreateVector(ops),
                              subgraph.name.empty() ? 0 : b_.CreateString(subgraph.name));
  }

  Offset<fb::Tensor> write_tensor(const Tensor& tensor) {
    const Quantization& q = tensor.quantization;
    Offset<fb::QuantizationParameters> quantization = 0;
    if (!q.scale.empty() || !q.zero_point.empty() || q.quantized_dimension != 0) {
      quantization = fb::CreateQuantizationParameters(b_, 0, 0, b_.CreateVector(q.scale),
                                                      b_.CreateVector(q.zero_point), fb::QuantizationDetails_NONE, 0,
                                                      q.quantized_dimension);
    }
    return fb::CreateTensor(b_, b_.CreateVector(tensor.shape), static_cast<fb::TensorType>(tensor.type),
                            static_cast<uint32_t>(tensor.buffer_index),
                            tensor.name.empty() ? 0 : b_.CreateString(tensor.name), quantization, tensor.is_variable);
  }

  Offset<fb::Operator> write_op(size_t s, size_t i, const Op& op) {
    std::string who = fmt::format("subgraph {} op {} ({})", s, i, op.name());
    if (op.has_undecoded_options) fail(fmt::format("{} has builtin options dmo did not decode", who));
    Options options = write_options(op, who);
    return fb::CreateOperator(b_, opcode_index(op), b_.CreateVector(op.inputs), b_.CreateVector(op.outputs),
                              options.type, options.table);
  }

  template <class P>
  const P& params_as(const Op& op, const std::string& who) const {
    const P* p = std::get_if<P>(&op.params);
    if (!p) fail(fmt::format("{} carries parameters of another op kind", who));
    return *p;
  }

  static fb::ActivationFunctionType activation(Activation a) { return static_cast<fb::ActivationFunctionType>(a); }
  static fb::Padding padding(Padding p) { return static_cast<fb::Padding>(p); }

  // The options table the reader decodes for each op kind.
  Options write_options(const Op& op, const std::string& who) {
    switch (static_cast<OpKind>(op.builtin_code)) {
      case OpKind::kConv2D: {
        const auto& p = params_as<Conv2DParams>(op, who);
        return {fb::BuiltinOptions_Conv2DOptions,
                fb::CreateConv2DOptions(b_, padding(p.padding), p.stride_w, p.stride_h, activation(p.activation),
                                        p.dilation_w, p.dilation_h)
                    .Union()};
      }
      case OpKind::kDepthwiseConv2D: {
        const auto& p = params_as<DepthwiseConv2DParams>(op, who);
        return {fb::BuiltinOptions_DepthwiseConv2DOptions,
                fb::CreateDepthwiseConv2DOptions(b_, padding(p.padding), p.stride_w, p.stride_h, p.depth_multiplier,
                                                 activation(p.activation), p.dilation_w, p.dilation_h)
                    .Union()};
      }
      case OpKind::kAveragePool2D:
      case OpKind::kMaxPool2D: {
        const auto& p = params_as<Pool2DParams>(op, who);
        return {fb::BuiltinOptions_Pool2DOptions,
                fb::CreatePool2DOptions(b_, padding(p.padding), p.stride_w, p.stride_h, p.filter_w, p.filter_h,
                                        activation(p.activation))
                    .Union()};
      }
      case OpKind::kFullyConnected: {
        const auto& p = params_as<FullyConnectedParams>(op, who);
        return {fb::BuiltinOptions_FullyConnectedOptions,
                fb::CreateFullyConnectedOptions(b_, activation(p.activation), p.weights_format, p.keep_num_dims,
                                                p.asymmetric_quantize_inputs)
                    .Union()};
      }
      case OpKind::kSoftmax:
        return {fb::BuiltinOptions_SoftmaxOptions,
                fb::CreateSoftmaxOptions(b_, params_as<SoftmaxParams>(op, who).beta).Union()};
      case OpKind::kConcatenation: {
        const auto& p = params_as<ConcatenationParams>(op, who);
        return {fb::BuiltinOptions_ConcatenationOptions,
                fb::CreateConcatenationOptions(b_, p.axis, activation(p.activation)).Union()};
      }
      case OpKind::kAdd:
        return {fb::BuiltinOptions_AddOptions,
                fb::CreateAddOptions(b_, activation(params_as<ElementwiseParams>(op, who).activation)).Union()};
      case OpKind::kSub:
        return {fb::BuiltinOptions_SubOptions,
                fb::CreateSubOptions(b_, activation(params_as<ElementwiseParams>(op, who).activation)).Union()};
      case OpKind::kMul:
        return {fb::BuiltinOptions_MulOptions,
                fb::CreateMulOptions(b_, activation(params_as<ElementwiseParams>(op, who).activation)).Union()};
      case OpKind::kReshape: {
        const auto& p = params_as<ReshapeParams>(op, who);
        if (!p.has_new_shape) return {};  // the shape comes from input 1
        return {fb::BuiltinOptions_ReshapeOptions,
                fb::CreateReshapeOptions(b_, b_.CreateVector(p.new_shape)).Union()};
      }
      case OpKind::kSqueeze:
        return {fb::BuiltinOptions_SqueezeOptions,
                fb::CreateSqueezeOptions(b_, b_.CreateVector(params_as<SqueezeParams>(op, who).squeeze_dims)).Union()};
      case OpKind::kMean:
        return {fb::BuiltinOptions_ReducerOptions,
                fb::CreateReducerOptions(b_, params_as<ReducerParams>(op, who).keep_dims).Union()};
      case OpKind::kStridedSlice: {
        const auto& p = params_as<StridedSliceParams>(op, who);
        return {fb::BuiltinOptions_StridedSliceOptions,
                fb::CreateStridedSliceOptions(b_, p.begin_mask, p.end_mask, p.ellipsis_mask, p.new_axis_mask,
                                              p.shrink_axis_mask, p.offset)
                    .Union()};
      }
      case OpKind::kSplit:
        return {fb::BuiltinOptions_SplitOptions,
                fb::CreateSplitOptions(b_, params_as<SplitParams>(op, who).num_splits).Union()};
      case OpKind::kSvdf: {
        const auto& p = params_as<SvdfParams>(op, who);
        return {fb::BuiltinOptions_SVDFOptions,
                fb::CreateSVDFOptions(b_, p.rank, activation(p.activation), p.asymmetric_quantize_inputs).Union()};
      }
      case OpKind::kGather: {
        const auto& p = params_as<GatherParams>(op, who);
        return {fb::BuiltinOptions_GatherOptions, fb::CreateGatherOptions(b_, p.axis, p.batch_dims).Union()};
      }
      default:
        params_as<NoParams>(op, who);
        return {};
    }
  }

  const Graph& graph_;
  FlatBufferBuilder b_{1 << 16};
  std::vector<const std::vector<uint8_t>*> buffer_data_;  // per buffer index; null = empty
  std::vector<uint8_t> plan_words_;
  std::vector<std::pair<std::string, uint32_t>> metadata_;
  std::vector<Offset<fb::OperatorCode>> codes_;
  std::map<std::tuple<int32_t, std::string, int32_t>, uint32_t> code_index_;
};

}  // namespace

std::vector<uint8_t> write_tflite(const Graph& graph) {
  if (graph.subgraphs.empty()) throw Error(fmt::format("{}: cannot write as .tflite: the graph has no subgraphs", graph.source));
  return GraphWriter(graph).run();
}

}  // namespace dmo

#include "dmo/tflite/graph_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <tuple>
#include <type_traits>
#include <utility>

#include "dmo/error.h"
#include "dmo/model/op_param_table.h"
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

// Calls f(field, index) for each field of P, last field first.
template <class P, class F>
void for_each_param_field_reversed(F&& f) {
  constexpr size_t n = std::tuple_size_v<std::decay_t<decltype(kParamFields<P>)>>;
  [&]<size_t... I>(std::index_sequence<I...>) {
    (f(std::get<n - 1 - I>(kParamFields<P>), n - 1 - I), ...);
  }(std::make_index_sequence<n>{});
}

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
      if (entry.name == kOfflinePlanMetadataName) {
        if (!graph_.offline_plan) continue;  // the plan was dropped: so is its entry
        claim(entry.buffer_index, &plan_words_, fmt::format("metadata '{}'", entry.name));
        plan_written = true;
      } else {
        claim(entry.buffer_index, &entry.data, fmt::format("metadata '{}'", entry.name));
      }
      metadata_.emplace_back(entry.name, entry.buffer_index);
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
    auto custom_options = op.custom_options.empty() ? 0 : b_.CreateVector(op.custom_options);
    return fb::CreateOperator(b_, opcode_index(op), b_.CreateVector(op.inputs), b_.CreateVector(op.outputs),
                              options.type, options.table, custom_options);
  }

  template <class P>
  const P& params_as(const Op& op, const std::string& who) const {
    const P* p = std::get_if<P>(&op.params);
    if (!p) fail(fmt::format("{} carries parameters of another op kind", who));
    return *p;
  }

  // The options table the reader decodes for the op's kind.
  Options write_options(const Op& op, const std::string& who) {
    Options options;
    bool described = visit_op_options(op.builtin_code, [&](const auto& entry) {
      using P = typename std::decay_t<decltype(entry)>::Params;
      options = write_table(params_as<P>(op, who), static_cast<fb::BuiltinOptions>(entry.union_tag));
    });
    if (!described) params_as<NoParams>(op, who);
    return options;
  }

  // Laid out as flatc's generated code does (vectors first, then fields
  // largest first, later ids first), so files match those it writes.
  template <class P>
  Options write_table(const P& p, fb::BuiltinOptions type) {
    std::array<Offset<void>, std::tuple_size_v<std::decay_t<decltype(kParamFields<P>)>>> vectors{};
    size_t at = 0;
    bool only_absent_vectors = true;
    for_each_param_field<P>([&](const auto& field) {
      if constexpr (kIsVectorField<std::decay_t<decltype(field)>>) {
        if (!field.given || p.*field.given) {
          vectors[at] = b_.CreateVector(p.*field.member).Union();
          only_absent_vectors = false;
        }
      } else if constexpr (kIsStringField<std::decay_t<decltype(field)>>) {
        vectors[at] = b_.CreateString(p.*field.member).Union();
        only_absent_vectors = false;
      } else {
        only_absent_vectors = false;
      }
      ++at;
    });
    // A RESHAPE without new_shape takes its shape from input 1: no table.
    if (only_absent_vectors) return {};
    const auto start = b_.StartTable();
    for (size_t size : {size_t{8}, size_t{4}, size_t{2}, size_t{1}}) {
      for_each_param_field_reversed<P>([&](const auto& field, size_t index) {
        if constexpr (kIsVectorField<std::decay_t<decltype(field)>> || kIsStringField<std::decay_t<decltype(field)>>) {
          if (size == sizeof(flatbuffers::uoffset_t) && !vectors[index].IsNull()) {
            b_.AddOffset(vtable_offset(field.id), vectors[index]);
          }
        } else {
          using Wire = WireScalar<std::decay_t<decltype(field.schema_default)>>;
          if (size == sizeof(Wire)) {
            b_.AddElement<Wire>(vtable_offset(field.id), static_cast<Wire>(p.*field.member),
                                static_cast<Wire>(field.schema_default));
          }
        }
      });
    }
    return {type, Offset<void>(b_.EndTable(start))};
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

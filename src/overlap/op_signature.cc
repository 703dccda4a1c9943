#include "dmo/overlap/op_signature.h"

#include <cstring>
#include <type_traits>
#include <variant>

#include "dmo/model/model_timeline.h"
#include "dmo/model/op_param_table.h"

namespace dmo {
namespace {

class Key {
 public:
  template <typename T>
  void add(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    const size_t at = text_.size();
    text_.resize(at + sizeof(T));
    std::memcpy(text_.data() + at, &value, sizeof(T));
  }
  template <typename T>
  void add_all(const std::vector<T>& values) {
    add(values.size());
    for (const T& v : values) add(v);
  }
  void add_text(const std::string& s) {
    add(s.size());
    text_ += s;
  }
  std::string take() { return std::move(text_); }

 private:
  std::string text_;
};

// FNV-1a over the bytes, 64 bits: constant data enters the key as its hash.
uint64_t hash_bytes(const std::vector<uint8_t>& bytes) {
  uint64_t hash = 14695981039346656037ull;
  for (uint8_t b : bytes) {
    hash ^= b;
    hash *= 1099511628211ull;
  }
  return hash;
}

void add_params(Key& key, const OpParams& params) {
  key.add(params.index());
  std::visit(
      [&](const auto& p) {
        using P = std::decay_t<decltype(p)>;
        if constexpr (!std::is_same_v<P, NoParams>) {
          for_each_param_field<P>([&](const auto& field) {
            using Field = std::decay_t<decltype(field)>;
            if constexpr (kIsVectorField<Field>) {
              key.add_all(p.*field.member);
              if (field.given) key.add(p.*field.given);
            } else if constexpr (kIsStringField<Field>) {
              key.add_text(p.*field.member);
            } else {
              key.add(p.*field.member);
            }
          });
        }
      },
      params);
}

bool calls_subgraphs(const Op& op) { return op.is(OpKind::kWhile) || op.is(OpKind::kIf) || op.is(OpKind::kCallOnce); }

// Weights and biases of these kinds scale values and steer no access.
bool constant_data_steers_nothing(const Op& op, size_t input_slot) {
  return input_slot >= 1 &&
         (op.is(OpKind::kConv2D) || op.is(OpKind::kDepthwiseConv2D) || op.is(OpKind::kFullyConnected));
}

}  // namespace

std::string op_signature(const Graph& graph, int32_t op_index, int32_t input, int32_t output) {
  const SubgraphIndex where = locate_flat_op(graph, op_index);
  const Subgraph& sg = graph.subgraphs[static_cast<size_t>(where.subgraph)];
  const Op& op = sg.ops[static_cast<size_t>(where.index)];
  const int32_t local_input = locate_flat_tensor(graph, input).index;
  const int32_t local_output = locate_flat_tensor(graph, output).index;
  Key key;
  key.add(op.builtin_code);
  if (calls_subgraphs(op)) key.add(op_index);
  key.add(op.version);
  key.add_text(op.custom_code);
  key.add_all(op.custom_options);
  key.add(op.has_undecoded_options);
  add_params(key, op.params);
  auto add_operands = [&](const std::vector<int32_t>& operands, bool inputs) {
    key.add(operands.size());
    for (size_t slot = 0; slot < operands.size(); ++slot) {
      const int32_t t = operands[slot];
      key.add(t == kNoTensor);  // the index itself is left out: only what it holds counts
      if (t == kNoTensor) continue;
      // Which operand first names this tensor: the same tensor twice reads one buffer.
      int32_t first = -1;
      for (size_t other = 0; other < op.inputs.size() && first < 0; ++other) {
        if (op.inputs[other] == t) first = static_cast<int32_t>(other);
      }
      for (size_t other = 0; other < op.outputs.size() && first < 0; ++other) {
        if (op.outputs[other] == t) first = 1000000 + static_cast<int32_t>(other);
      }
      key.add(first);
      key.add(static_cast<char>(t == local_input ? 'i' : t == local_output ? 'o' : '-'));
      const Tensor& tensor = sg.tensors[static_cast<size_t>(t)];
      key.add(tensor.type);
      key.add_all(tensor.shape);
      key.add(tensor.byte_size);
      key.add_all(tensor.quantization.scale);
      key.add_all(tensor.quantization.zero_point);
      key.add(tensor.quantization.quantized_dimension);
      key.add(tensor.is_constant);
      key.add(tensor.is_variable);
      if (tensor.is_constant && !(inputs && constant_data_steers_nothing(op, slot))) key.add(hash_bytes(tensor.data));
    }
  };
  add_operands(op.inputs, true);
  add_operands(op.outputs, false);
  return key.take();
}

}  // namespace dmo

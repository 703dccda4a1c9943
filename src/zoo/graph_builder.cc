#include "dmo/zoo/graph_builder.h"

#include <fmt/format.h>

#include "dmo/error.h"
#include "dmo/model/lifetime.h"

namespace dmo {

GraphBuilder::GraphBuilder(std::string source) {
  graph_.source = std::move(source);
  graph_.version = 3;
  graph_.subgraphs.emplace_back();
  graph_.subgraphs[0].name = "main";
}

int32_t GraphBuilder::add_tensor(const std::string& name, DataType type, const Shape& shape, Quantization quant) {
  Tensor t;
  t.name = name;
  t.type = type;
  t.shape = shape;
  t.quantization = std::move(quant);
  auto count = checked_element_count(shape, INT64_MAX / 16);
  auto elem = element_size(type);
  if (!count || !elem) throw Error(fmt::format("{}: tensor '{}' has an invalid shape or type", graph_.source, name));
  t.element_count = *count;
  t.byte_size = *count * *elem;
  auto& tensors = current().tensors;
  // Each tensor gets a buffer of its own.
  t.buffer_index = next_buffer_++;
  tensors.push_back(std::move(t));
  return static_cast<int32_t>(tensors.size()) - 1;
}

int32_t GraphBuilder::add_constant(const std::string& name, DataType type, const Shape& shape,
                                   std::vector<uint8_t> data, Quantization quant) {
  int32_t index = add_tensor(name, type, shape, std::move(quant));
  Tensor& t = current().tensors[static_cast<size_t>(index)];
  if (static_cast<int64_t>(data.size()) != t.byte_size) {
    throw Error(fmt::format("{}: constant '{}' has {} bytes, shape needs {}", graph_.source, name, data.size(),
                            t.byte_size));
  }
  t.data = std::move(data);
  t.is_constant = !t.data.empty();
  return index;
}

void GraphBuilder::add_op(OpKind kind, std::vector<int32_t> inputs, std::vector<int32_t> outputs, OpParams params) {
  Op op;
  op.builtin_code = static_cast<int32_t>(kind);
  op.inputs = std::move(inputs);
  op.outputs = std::move(outputs);
  op.params = std::move(params);
  current().ops.push_back(std::move(op));
}

int32_t GraphBuilder::add_subgraph(const std::string& name) {
  graph_.subgraphs.emplace_back();
  graph_.subgraphs.back().name = name;
  return static_cast<int32_t>(graph_.subgraphs.size()) - 1;
}

void GraphBuilder::select(int32_t index) {
  if (index < 0 || static_cast<size_t>(index) >= graph_.subgraphs.size()) {
    throw Error(fmt::format("{}: no subgraph {}", graph_.source, index));
  }
  current_ = index;
}

void GraphBuilder::set_inputs(std::vector<int32_t> inputs) { current().inputs = std::move(inputs); }

void GraphBuilder::set_outputs(std::vector<int32_t> outputs) { current().outputs = std::move(outputs); }

const Tensor& GraphBuilder::tensor(int32_t index) const {
  return graph_.subgraphs[static_cast<size_t>(current_)].tensors.at(static_cast<size_t>(index));
}

Graph GraphBuilder::finish() {
  for (size_t s = 0; s < graph_.subgraphs.size(); ++s) check_subgraph(static_cast<int32_t>(s));
  Graph result = std::move(graph_);
  graph_ = Graph{};
  current_ = 0;
  next_buffer_ = 1;
  return result;
}

void GraphBuilder::check_subgraph(int32_t index) const {
  const Subgraph& sg = graph_.subgraphs[static_cast<size_t>(index)];
  auto check = [&](int32_t index, bool allow_omitted) {
    if (allow_omitted && index == kNoTensor) return;
    if (index < 0 || static_cast<size_t>(index) >= sg.tensors.size()) {
      throw Error(fmt::format("{}: tensor index {} out of range", graph_.source, index));
    }
  };
  for (int32_t t : sg.inputs) check(t, false);
  for (int32_t t : sg.outputs) check(t, false);
  for (const Op& op : sg.ops) {
    for (int32_t t : op.inputs) check(t, true);
    for (int32_t t : op.outputs) check(t, false);
  }
  check_execution_order(sg, index, graph_.source);
}

}  // namespace dmo

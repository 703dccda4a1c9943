// Builds a Graph in code: tensors, constant data and ops in execution order,
// in subgraph 0 unless another subgraph is selected (control flow). Used by
// the model zoo and by tests.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dmo/model/graph.h"

namespace dmo {

class GraphBuilder {
 public:
  explicit GraphBuilder(std::string source);

  // An activation tensor (no data). Returns its index.
  int32_t add_tensor(const std::string& name, DataType type, const Shape& shape, Quantization quant = {});

  // A constant tensor; `data` must hold exactly the shape's bytes.
  int32_t add_constant(const std::string& name, DataType type, const Shape& shape, std::vector<uint8_t> data,
                       Quantization quant = {});

  template <typename T>
  int32_t add_constant_values(const std::string& name, DataType type, const Shape& shape,
                              const std::vector<T>& values, Quantization quant = {}) {
    std::vector<uint8_t> bytes(values.size() * sizeof(T));
    for (size_t i = 0; i < values.size(); ++i) {
      const auto* p = reinterpret_cast<const uint8_t*>(&values[i]);
      for (size_t b = 0; b < sizeof(T); ++b) bytes[i * sizeof(T) + b] = p[b];
    }
    return add_constant(name, type, shape, std::move(bytes), std::move(quant));
  }

  void add_op(OpKind kind, std::vector<int32_t> inputs, std::vector<int32_t> outputs, OpParams params = NoParams{});

  // Adds an empty subgraph and returns its index; `select` makes later
  // tensors, ops, inputs and outputs go to subgraph `index`.
  int32_t add_subgraph(const std::string& name);
  void select(int32_t index);

  void set_inputs(std::vector<int32_t> inputs);
  void set_outputs(std::vector<int32_t> outputs);

  const Tensor& tensor(int32_t index) const;

  // Checks every index and returns the graph; the builder is left empty.
  Graph finish();

 private:
  void check_subgraph(int32_t index) const;
  Subgraph& current() { return graph_.subgraphs[static_cast<size_t>(current_)]; }
  Graph graph_;
  int32_t current_ = 0;
  int32_t next_buffer_ = 1;  // buffer 0 is the empty sentinel
};

}  // namespace dmo

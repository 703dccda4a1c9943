#include "dmo/model/graph.h"

namespace dmo {

std::string Op::name() const {
  if (is(OpKind::kCustom) && !custom_code.empty()) return custom_code;
  return builtin_op_name(builtin_code);
}

size_t Graph::total_tensor_count() const {
  size_t count = 0;
  for (const Subgraph& subgraph : subgraphs) count += subgraph.tensors.size();
  return count;
}

}  // namespace dmo

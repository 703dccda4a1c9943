#include "dmo/runtime/input_pattern.h"

#include "dmo/runtime/pattern_values.h"

namespace dmo {

PatternKind pattern_kind(DataType type) {
  switch (type) {
    case DataType::kFloat32: return PatternKind::kFloat32;
    case DataType::kInt8: return PatternKind::kInt8;
    case DataType::kUInt8: return PatternKind::kUInt8;
    case DataType::kInt16: return PatternKind::kInt16;
    case DataType::kInt32: return PatternKind::kInt32;
    case DataType::kInt64: return PatternKind::kInt64;
    case DataType::kBool: return PatternKind::kBool;
    default: return PatternKind::kBytes;
  }
}

int64_t pattern_values(const Tensor& t) {
  return pattern_kind(t.type) == PatternKind::kBytes ? t.byte_size : t.element_count;
}

std::vector<uint8_t> pattern_input(const Subgraph& subgraph, uint32_t seed) {
  std::vector<uint8_t> out;
  for (size_t k = 0; k < subgraph.inputs.size(); ++k) {
    const Tensor& t = subgraph.tensors[static_cast<size_t>(subgraph.inputs[k])];
    const size_t at = out.size();
    out.resize(at + static_cast<size_t>(t.byte_size));
    fill_pattern(out.data() + at, pattern_kind(t.type), pattern_values(t), seed, static_cast<uint32_t>(k));
  }
  return out;
}

}  // namespace dmo

#include "dmo/runtime/unwritten_reads.h"

#include "dmo/model/lifetime.h"
#include "dmo/ops/kernels.h"

namespace dmo {

std::vector<UnwrittenRead> unwritten_read_tensors(const Subgraph& subgraph) {
  const size_t n = subgraph.tensors.size();
  std::vector<char> has_value(n, 0);
  for (int32_t t : subgraph.inputs) {
    if (t != kNoTensor) has_value[static_cast<size_t>(t)] = 1;
  }
  for (const Op& op : subgraph.ops) {
    for (int32_t t : op.outputs) {
      if (t != kNoTensor) has_value[static_cast<size_t>(t)] = 1;
    }
  }
  std::vector<int32_t> first_reader(n, -1);
  for (size_t k = 0; k < subgraph.ops.size(); ++k) {
    // An accelerator op's inputs are opaque: its scratch areas (Vela's
    // ethos-u op) are inputs nobody else writes, filled by the op itself.
    // Other custom ops (TFLM's signal library) read their inputs as any op.
    if (is_accelerator_custom_op(subgraph.ops[k])) continue;
    for (int32_t t : subgraph.ops[k].inputs) {
      if (t != kNoTensor && first_reader[static_cast<size_t>(t)] < 0) first_reader[static_cast<size_t>(t)] = static_cast<int32_t>(k);
    }
  }
  std::vector<UnwrittenRead> unwritten;
  for (size_t t = 0; t < n; ++t) {
    // Constants and variables hold values of their own; only arena tensors can be empty.
    if (has_value[t] || first_reader[t] < 0 || !tflm_plans_tensor(subgraph.tensors[t])) continue;
    unwritten.push_back({static_cast<int32_t>(t), first_reader[t]});
  }
  return unwritten;
}

}  // namespace dmo

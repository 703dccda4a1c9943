#include "dmo/overlap/overlap_candidates.h"

#include <algorithm>

#include "dmo/model/lifetime.h"

namespace dmo {

std::vector<OverlapCandidate> overlap_candidates(const Subgraph& subgraph, bool preserve_graph_inputs) {
  std::vector<Lifetime> lifetimes = compute_lifetimes(subgraph);
  std::vector<OverlapCandidate> result;
  for (int32_t i = 0; i < static_cast<int32_t>(subgraph.ops.size()); ++i) {
    const Op& op = subgraph.ops[static_cast<size_t>(i)];
    OverlapCandidate c;
    c.op = i;
    if (!op.outputs.empty()) {
      c.output = op.outputs[0];
      c.output_bytes = subgraph.tensors[static_cast<size_t>(c.output)].byte_size;
    }
    for (int32_t t : op.inputs) {
      if (t == kNoTensor || t == c.output) continue;
      const Tensor& tensor = subgraph.tensors[static_cast<size_t>(t)];
      if (!tflm_plans_tensor(tensor)) continue;
      bool is_graph_input = std::find(subgraph.inputs.begin(), subgraph.inputs.end(), t) != subgraph.inputs.end();
      bool is_graph_output = std::find(subgraph.outputs.begin(), subgraph.outputs.end(), t) != subgraph.outputs.end();
      bool dies = lifetimes[static_cast<size_t>(t)].last == i && !is_graph_output &&
                  !(preserve_graph_inputs && is_graph_input);
      bool better = c.input == kNoTensor || (dies && !c.input_dies) ||
                    (dies == c.input_dies && tensor.byte_size > c.input_bytes);
      if (better) {
        c.input = t;
        c.input_bytes = tensor.byte_size;
        c.input_dies = dies;
      }
    }
    if (c.output == kNoTensor) c.input_dies = false;
    result.push_back(c);
  }
  return result;
}

}  // namespace dmo

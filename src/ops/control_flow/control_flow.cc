// The prepare step of WHILE, IF and CALL_ONCE (ops/control_flow.h): which
// subgraphs the op calls. Their operands were checked against the called
// subgraphs with the model (model/subgraph_calls.h), as TFLM's Prepare does.
#include "dmo/ops/control_flow.h"

#include <variant>

#include "dmo/model/subgraph_calls.h"

namespace dmo {

ControlFlowCall prepare_control_flow(const OpContext& ctx) {
  const auto kind = static_cast<OpKind>(ctx.op->builtin_code);
  ctx.require(is_control_flow(kind), "is not an op that calls subgraphs");
  const std::vector<int32_t> callees = called_subgraphs(*ctx.op);
  ctx.require(!callees.empty(), "carries no options naming the subgraphs it calls");
  ControlFlowCall call;
  call.kind = kind;
  call.first = callees[0];
  call.second = callees.size() > 1 ? callees[1] : callees[0];
  return call;
}

}  // namespace dmo

// WHILE, IF and CALL_ONCE: ops that run other subgraphs, mirroring TFLM's
// while.cc (WhileEval), if.cc (Eval) and call_once.cc (Eval) with the copy
// helpers of kernel_util.cc (CopyOpInputsToSubgraphInputs,
// CopyOpInputsToOpOutputs, CopyOpOutputsToSubgraphInputs,
// CopySubgraphOutputsToOpOutputs), one memcpy per tensor in tensor order,
// here each a block copy through the memory policy (ops/block_copy.h).
//
// Such an op is no single loop nest: its eval copies and calls subgraphs
// through `Calls`, which the interpreter provides (runtime/interpreter.h):
//   inputs(s) / outputs(s)  subgraph s's input tensors (written by the
//                           copies) and output tensors (read by them);
//   enter(s)                before the copies into s: s starts a new call
//                           (values of its earlier calls are dead);
//   invoke(s)               runs s's ops in order through the same memory
//                           policy, so the checking policy sees every access;
//   leave(s)                after the copies out of s: its values are dead;
//   first_call()            whether this op runs for the first time (CALL_ONCE).
// WHILE's iteration count is the cond subgraph's BOOL output, read after
// each call of cond; IF reads its BOOL input 0. The checks TFLM's Prepare
// makes (subgraph indices, operand counts, sizes of what is copied) are
// model/subgraph_calls.h's, made before anything runs.
#pragma once

#include <cstdint>
#include <span>

#include "dmo/model/op_kind.h"
#include "dmo/ops/kernel_io.h"
#include "dmo/ops/op_context.h"

namespace dmo {

// An op that calls subgraphs and which: WHILE cond and body, IF then and
// else, CALL_ONCE init.
struct ControlFlowCall {
  OpKind kind = OpKind::kWhile;
  int32_t first = 0;
  int32_t second = 0;
};

constexpr bool is_control_flow(OpKind kind) {
  return kind == OpKind::kWhile || kind == OpKind::kIf || kind == OpKind::kCallOnce;
}

// The op's call, from its parameters; fails for other ops.
ControlFlowCall prepare_control_flow(const OpContext& ctx);

namespace control_flow_detail {

// A tensor the op wrote, read back as a copy's source.
inline TensorRef as_source(TensorRef ref) {
  ref.is_output = false;
  return ref;
}

// memcpy(to, from, bytes of from): one block copy per tensor.
template <class Memory>
void copy_tensor(Memory& mem, const TensorRef& to, const TensorRef& from) {
  mem.template copy<uint8_t>(to, 0, from, 0, from.tensor->byte_size);
}

// CopyOpInputsToSubgraphInputs: op input first + i -> subgraph input i.
template <class Calls, class Memory>
void op_inputs_to_subgraph(const KernelIO& io, size_t first, int32_t s, Calls& calls, Memory& mem) {
  const std::span<const TensorRef> to = calls.inputs(s);
  for (size_t i = 0; i < to.size(); ++i) copy_tensor(mem, to[i], io.input(first + i));
}

// CopyOpOutputsToSubgraphInputs: op output i -> subgraph input i.
template <class Calls, class Memory>
void op_outputs_to_subgraph(const KernelIO& io, int32_t s, Calls& calls, Memory& mem) {
  const std::span<const TensorRef> to = calls.inputs(s);
  for (size_t i = 0; i < to.size(); ++i) copy_tensor(mem, to[i], as_source(io.output(i)));
}

// CopySubgraphOutputsToOpOutputs: subgraph output i -> op output i.
template <class Calls, class Memory>
void subgraph_outputs_to_op(const KernelIO& io, int32_t s, Calls& calls, Memory& mem) {
  const std::span<const TensorRef> from = calls.outputs(s);
  for (size_t i = 0; i < from.size(); ++i) copy_tensor(mem, io.output(i), from[i]);
}

// Calls cond (its inputs already copied in) and reads its BOOL output.
template <class Calls, class Memory>
bool call_condition(int32_t cond, Calls& calls, Memory& mem) {
  calls.invoke(cond);
  const bool value = mem.template load<bool>(calls.outputs(cond)[0], 0);
  calls.leave(cond);
  return value;
}

}  // namespace control_flow_detail

template <class Calls, class Memory>
void eval_control_flow(const ControlFlowCall& call, const KernelIO& io, Calls& calls, Memory& mem) {
  using namespace control_flow_detail;
  switch (call.kind) {
    case OpKind::kWhile: {
      const int32_t cond = call.first, body = call.second;
      calls.enter(cond);
      op_inputs_to_subgraph(io, 0, cond, calls, mem);
      // The op's inputs go to its outputs before cond runs (WhileEval).
      for (size_t i = 0; i < io.outputs.size(); ++i) copy_tensor(mem, io.output(i), io.input(i));
      bool again = call_condition(cond, calls, mem);
      while (again) {
        calls.enter(body);
        op_outputs_to_subgraph(io, body, calls, mem);
        calls.invoke(body);
        subgraph_outputs_to_op(io, body, calls, mem);
        calls.leave(body);
        calls.enter(cond);
        op_outputs_to_subgraph(io, cond, calls, mem);
        again = call_condition(cond, calls, mem);
      }
      return;
    }
    case OpKind::kIf: {
      const bool condition = mem.template load<bool>(io.input(0), 0);
      const int32_t branch = condition ? call.first : call.second;
      calls.enter(branch);
      op_inputs_to_subgraph(io, 1, branch, calls, mem);
      calls.invoke(branch);
      subgraph_outputs_to_op(io, branch, calls, mem);
      calls.leave(branch);
      return;
    }
    case OpKind::kCallOnce:
      if (calls.first_call()) {
        calls.enter(call.first);
        calls.invoke(call.first);
        calls.leave(call.first);
      }
      return;
    default: return;
  }
}

}  // namespace dmo

#include "dmo/model/subgraph_calls.h"

#include <fmt/format.h>

#include <string>
#include <variant>

#include "dmo/error.h"

namespace dmo {

std::vector<int32_t> called_subgraphs(const Op& op) {
  if (const auto* p = std::get_if<WhileParams>(&op.params); p && op.is(OpKind::kWhile)) {
    return {p->cond_subgraph, p->body_subgraph};
  }
  if (const auto* p = std::get_if<IfParams>(&op.params); p && op.is(OpKind::kIf)) {
    return {p->then_subgraph, p->else_subgraph};
  }
  if (const auto* p = std::get_if<CallOnceParams>(&op.params); p && op.is(OpKind::kCallOnce)) {
    return {p->init_subgraph};
  }
  return {};
}

bool has_subgraph_calls(const Graph& graph) {
  for (const Subgraph& sg : graph.subgraphs) {
    for (const Op& op : sg.ops) {
      if (!called_subgraphs(op).empty()) return true;
    }
  }
  return false;
}

namespace {

class CallChecker {
 public:
  explicit CallChecker(const Graph& graph) : graph_(graph) {}

  void check_all() {
    for (size_t s = 0; s < graph_.subgraphs.size(); ++s) {
      const Subgraph& sg = graph_.subgraphs[s];
      for (size_t i = 0; i < sg.ops.size(); ++i) check_op(static_cast<int32_t>(s), static_cast<int32_t>(i));
    }
    std::vector<int32_t> path;
    state_.assign(graph_.subgraphs.size(), kUnvisited);
    for (size_t s = 0; s < graph_.subgraphs.size(); ++s) find_cycle(static_cast<int32_t>(s), path);
  }

 private:
  enum State : uint8_t { kUnvisited, kOnPath, kDone };

  [[noreturn]] void fail(int32_t s, int32_t i, const std::string& what) const {
    const Op& op = graph_.subgraphs[static_cast<size_t>(s)].ops[static_cast<size_t>(i)];
    throw Error(fmt::format("{}: subgraph {} op {} ({}): {}", graph_.source, s, i, op.name(), what));
  }

  const Subgraph& subgraph(int32_t s) const { return graph_.subgraphs[static_cast<size_t>(s)]; }
  const Tensor& tensor(int32_t s, int32_t t) const { return subgraph(s).tensors[static_cast<size_t>(t)]; }

  void require_count(int32_t s, int32_t i, size_t got, size_t want, const std::string& what) const {
    if (got != want) fail(s, i, fmt::format("{} is {}, but must be {}", what, got, want));
  }

  // A memcpy between an op's tensor and a subgraph's: TFLM copies the bytes
  // of one into the other, so both must be the same type and size.
  void require_same_tensor(int32_t s, int32_t i, int32_t op_tensor, int32_t callee, int32_t callee_tensor,
                           const std::string& what) const {
    const Tensor& a = tensor(s, op_tensor);
    const Tensor& b = tensor(callee, callee_tensor);
    if (a.type != b.type || a.byte_size != b.byte_size) {
      fail(s, i, fmt::format("{}: tensor {} ({}, {} bytes) and subgraph {} tensor {} ({}, {} bytes) differ", what,
                             op_tensor, data_type_name(a.type), a.byte_size, callee, callee_tensor,
                             data_type_name(b.type), b.byte_size));
    }
  }

  void check_op(int32_t s, int32_t i) const {
    const Op& op = subgraph(s).ops[static_cast<size_t>(i)];
    const std::vector<int32_t> callees = called_subgraphs(op);
    for (int32_t callee : callees) {
      if (callee < 0 || static_cast<size_t>(callee) >= graph_.subgraphs.size()) {
        fail(s, i, fmt::format("calls subgraph {}, but the model has {} subgraphs", callee, graph_.subgraphs.size()));
      }
    }
    for (int32_t t : op.inputs) {
      if (!callees.empty() && t == kNoTensor) fail(s, i, "an input is omitted");
    }
    if (op.is(OpKind::kWhile)) check_while(s, i, op, callees[0], callees[1]);
    if (op.is(OpKind::kIf)) check_if(s, i, op, callees[0], callees[1]);
    if (op.is(OpKind::kCallOnce)) check_call_once(s, i, op, callees[0]);
  }

  void check_while(int32_t s, int32_t i, const Op& op, int32_t cond, int32_t body) const {
    const size_t n = op.inputs.size();
    require_count(s, i, op.outputs.size(), n, "the number of outputs");
    require_count(s, i, subgraph(cond).inputs.size(), n, fmt::format("the number of inputs of cond subgraph {}", cond));
    require_count(s, i, subgraph(body).inputs.size(), n, fmt::format("the number of inputs of body subgraph {}", body));
    require_count(s, i, subgraph(body).outputs.size(), n,
                  fmt::format("the number of outputs of body subgraph {}", body));
    if (subgraph(cond).outputs.empty()) fail(s, i, fmt::format("cond subgraph {} has no output", cond));
    const Tensor& flag = tensor(cond, subgraph(cond).outputs[0]);
    if (flag.type != DataType::kBool || flag.element_count < 1) {
      fail(s, i, fmt::format("output 0 of cond subgraph {} is {} with {} elements, not a BOOL", cond,
                             data_type_name(flag.type), flag.element_count));
    }
    for (size_t k = 0; k < n; ++k) {
      require_same_tensor(s, i, op.inputs[k], cond, subgraph(cond).inputs[k], fmt::format("input {}", k));
      require_same_tensor(s, i, op.outputs[k], cond, subgraph(cond).inputs[k], fmt::format("output {}", k));
      require_same_tensor(s, i, op.inputs[k], s, op.outputs[k], fmt::format("input {}", k));
      require_same_tensor(s, i, op.outputs[k], body, subgraph(body).inputs[k], fmt::format("output {}", k));
      require_same_tensor(s, i, op.outputs[k], body, subgraph(body).outputs[k], fmt::format("output {}", k));
    }
  }

  void check_if(int32_t s, int32_t i, const Op& op, int32_t then_branch, int32_t else_branch) const {
    if (op.inputs.empty()) fail(s, i, "has no condition input");
    const Tensor& flag = tensor(s, op.inputs[0]);
    if (flag.type != DataType::kBool || flag.element_count != 1) {
      fail(s, i, fmt::format("the condition (input 0) is {} with {} elements, not one BOOL", data_type_name(flag.type),
                             flag.element_count));
    }
    for (int32_t branch : {then_branch, else_branch}) {
      require_count(s, i, subgraph(branch).inputs.size(), op.inputs.size() - 1,
                    fmt::format("the number of inputs of branch subgraph {}", branch));
      require_count(s, i, subgraph(branch).outputs.size(), op.outputs.size(),
                    fmt::format("the number of outputs of branch subgraph {}", branch));
      for (size_t k = 1; k < op.inputs.size(); ++k) {
        require_same_tensor(s, i, op.inputs[k], branch, subgraph(branch).inputs[k - 1], fmt::format("input {}", k));
      }
      for (size_t k = 0; k < op.outputs.size(); ++k) {
        require_same_tensor(s, i, op.outputs[k], branch, subgraph(branch).outputs[k], fmt::format("output {}", k));
      }
    }
  }

  void check_call_once(int32_t s, int32_t i, const Op& op, int32_t init) const {
    require_count(s, i, op.inputs.size() + op.outputs.size(), 0, "the number of inputs and outputs");
    require_count(s, i, subgraph(init).inputs.size() + subgraph(init).outputs.size(), 0,
                  fmt::format("the number of inputs and outputs of init subgraph {}", init));
  }

  // Depth-first over calls; a subgraph met again while on the path is a cycle.
  void find_cycle(int32_t s, std::vector<int32_t>& path) {
    if (state_[static_cast<size_t>(s)] == kDone) return;
    state_[static_cast<size_t>(s)] = kOnPath;
    path.push_back(s);
    const Subgraph& sg = subgraph(s);
    for (size_t i = 0; i < sg.ops.size(); ++i) {
      for (int32_t callee : called_subgraphs(sg.ops[i])) {
        if (state_[static_cast<size_t>(callee)] == kOnPath) {
          std::string chain;
          for (size_t p = 0; p < path.size(); ++p) {
            if (chain.empty() && path[p] != callee) continue;
            chain += fmt::format("{} -> ", path[p]);
          }
          fail(s, static_cast<int32_t>(i),
               fmt::format("calls subgraph {}, which is already running (recursion: subgraph {}{})", callee, chain,
                           callee));
        }
        find_cycle(callee, path);
      }
    }
    path.pop_back();
    state_[static_cast<size_t>(s)] = kDone;
  }

  const Graph& graph_;
  std::vector<State> state_;
};

}  // namespace

void check_subgraph_calls(const Graph& graph) { CallChecker(graph).check_all(); }

}  // namespace dmo

// Runs an execution schedule (schedule/schedule.h) of subgraph 0 inside one
// byte arena laid out by a placement: every planned tensor at its offset
// (or, for a view, inside its base tensor), constants in place, variables in
// persistent storage, resource variables beside them (ops/resource_variables.h).
// Each op is prepared once; each step evaluates it.
//
// Ops that call subgraphs (WHILE, IF, CALL_ONCE: ops/control_flow.h) run
// the called subgraphs' ops here, through the same memory policy, with the
// copies between the caller's and the callee's tensors as TFLM makes them.
// Tensors are numbered flat over all subgraphs, subgraph 0 first
// (model/model_timeline.h), so subgraph 0's keep their indices; a placement
// may cover subgraph 0 only (the others then get unshared bytes outside the
// arena) or every subgraph (a plan of the whole model). The checking policy
// then counts time as the model timeline does, each op at its time, and a
// called subgraph's values are released when its call is over, since its
// next call (the next WHILE iteration) starts afresh.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "dmo/model/graph.h"
#include "dmo/model/model_timeline.h"
#include "dmo/ops/control_flow.h"
#include "dmo/ops/memory_policy.h"
#include "dmo/ops/op_context.h"
#include "dmo/ops/prepared_kernel.h"
#include "dmo/ops/resource_variables.h"
#include "dmo/runtime/tensor_placement.h"
#include "dmo/runtime/zeroed_bytes.h"
#include "dmo/schedule/schedule.h"

namespace dmo {

// The byte TFLM's ResetVariableTensors fills a variable tensor with: an
// int8 tensor's zero point, else 0.
uint8_t variable_reset_byte(const Tensor& tensor);

class Interpreter {
 public:
  // The default schedule, with the placement's descending ops.
  Interpreter(const Graph& graph, TensorPlacement placement);
  Interpreter(const Graph& graph, TensorPlacement placement, Schedule schedule);
  // Prepared ops point into this interpreter's own storage.
  Interpreter(const Interpreter&) = delete;
  Interpreter& operator=(const Interpreter&) = delete;

  // Bytes of all graph inputs (or outputs) concatenated in order.
  int64_t input_bytes() const;
  int64_t output_bytes() const;
  void set_inputs(std::span<const uint8_t> bytes);
  std::vector<uint8_t> outputs() const;

  // Called after the last step of each op with its index, while its
  // outputs are intact.
  using OpObserver = std::function<void(int32_t op)>;
  void run(const OpObserver& after_op = {});
  // Runs one op alone, its whole output walking as the schedule walks it
  // (its inputs must already hold their values).
  void run_op(int32_t op);
  // Writes bytes into a tensor's storage (for feeding one op in tests and tools).
  // Tensor indices here are flat (subgraph 0's are its own).
  void set_tensor(int32_t tensor, std::span<const uint8_t> bytes);
  // Runs steps [first_step, end_step) of the schedule with the address-only
  // policy (ops/memory_policy.h): their reads and writes in order, indexed
  // densely in each tensor, as if each step ran whole in memory (a split
  // stage's band buffers are invisible to it). Inputs must hold values an
  // op may index by (nothing is read from memory).
  void run_address_only(AddressMemory& memory, size_t first_step = 0, size_t end_step = SIZE_MAX) const;
  // Runs with the checking policy over the whole arena (ops/memory_policy.h):
  // every clobber, contiguous runs within an op merged. Graph inputs hold
  // their values from the start; tensors read but never written
  // (runtime/unwritten_reads.h) are not checked here.
  std::vector<Clobber> run_checked_all(const OpObserver& after_op = {});
  // The same; the first clobber, if any.
  std::optional<Clobber> run_checked(const OpObserver& after_op = {});

  // A tensor's bytes in dense order (gathered when it is a strided view).
  // A band-buffered tensor (a split stage's intermediate) has none: dmo::Error.
  std::vector<uint8_t> tensor_contents(int32_t tensor) const;
  // A tensor's storage; a strided view has none of its own (use tensor_contents).
  std::span<const uint8_t> tensor_bytes(int32_t tensor) const;
  // An op's context; `op` is a flat op index (subgraph 0's are its own).
  OpContext context(int32_t op) const;
  // The op's prepared kernel (prepared on first use; fails naming the op).
  // An op that calls subgraphs has none: its call is prepared instead.
  const PreparedKernel& prepared(int32_t op) const;
  // Prepares every op of every subgraph the model runs (fails naming the first it cannot).
  void prepare_all() const;
  // A step's operands as its kernel sees them, a split stage's
  // band-buffered tensors pointed at their bands (what generated code replays).
  struct StepOperands {
    std::vector<TensorRef> inputs, outputs;
  };
  StepOperands step_operands(const ScheduleStep& step) const;
  // The arena's first byte: operands in the arena lie at offsets from it.
  const uint8_t* arena_data() const { return arena_.data(); }
  const ModelTimeline& timeline() const { return timeline_; }
  const TensorPlacement& placement() const { return placement_; }
  const Schedule& schedule() const { return schedule_; }

 private:
  uint8_t* tensor_data(int32_t tensor) const;
  void require_whole(int32_t tensor) const;
  // Points `ref` at its band when `bands` holds its tensor.
  void place_in_band(TensorRef& ref, std::span<const BandPosition> bands) const;
  const TensorView* view_of(int32_t tensor) const;
  void reset_variables();
  ArenaTenancy arena_tenancy() const;
  ArenaTenancy whole_model_tenancy() const;
  template <class Memory>
  void eval_step(const ScheduleStep& step, Memory& memory) const;
  template <class Memory>
  void eval_op(int32_t op, bool descending, const OutputRegion& region, Memory& memory) const;
  template <class Memory>
  void run_subgraph(int32_t subgraph, Memory& memory) const;
  template <class Memory>
  class SubgraphCalls;
  const Tensor& flat_tensor(int32_t t) const;
  void place_outside_arena();

  const Graph& graph_;
  const Subgraph& subgraph_;
  ModelTimeline timeline_;
  bool runs_calls_ = false;  // some op calls a subgraph: checking counts time as the model timeline
  TensorPlacement placement_;
  Schedule schedule_;
  std::vector<int32_t> view_index_;          // per tensor: index into schedule_.views, -1 for none
  std::vector<BandBuffer> bands_;            // per tensor: its band buffer, 0 rows when stored whole
  std::vector<std::vector<int64_t>> band_strides_;  // per band tensor of several batches: its band's strides
  std::vector<int32_t> last_step_of_op_;     // per op: the last step that runs it (-1: none)
  // The last step of the op, or of the split stage it runs in: the steps
  // of a stage are one op for clobbers.
  int32_t last_step_of_unit(int32_t op) const {
    const SplitStage* stage = split_stage_of(schedule_, op);
    return last_step_of_op_[static_cast<size_t>(stage ? stage->last_op : op)];
  }
  bool is_last_step(size_t step) const {
    return last_step_of_op_[static_cast<size_t>(schedule_.steps[step].op)] == static_cast<int32_t>(step);
  }
  mutable ZeroedBytes arena_;                // the planned tensors
  mutable ZeroedBytes persistent_;           // variable tensors
  std::vector<int64_t> persistent_offsets_;
  // Resource variables (VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE): like
  // the variable tensors outside the arena, kept from one run to the next.
  std::unique_ptr<ResourceVariables> resources_;
  // Tensors of subgraphs the placement leaves out: bytes of their own.
  mutable std::vector<uint8_t> outside_;
  std::vector<int64_t> outside_offsets_;
  // Per subgraph: its inputs as copies write them, its outputs as copies read them.
  std::vector<std::vector<TensorRef>> subgraph_inputs_, subgraph_outputs_;
  mutable std::vector<char> called_once_;  // per flat op: CALL_ONCE has run
  // An op's kernel, prepared once, and the tensor references it runs on.
  struct PreparedOp {
    OpContext context;
    PreparedKernel kernel;
    bool calls_subgraphs = false;
    ControlFlowCall call;
  };
  const PreparedOp& prepared_op(int32_t op) const;
  mutable std::vector<PreparedOp> prepared_;  // per op, filled on first use
};

// Prepares every op of every subgraph the model runs once: throws
// dmo::Error naming the first op dmo cannot run (no kernel, unsupported
// types, a bad call between subgraphs), before any slow step.
void require_kernels(const Graph& graph, KernelFamily family = KernelFamily::kTflmReference);

// Runs `op` with the address-only policy: the algorithmic safe overlap of
// (input_tensor, output_tensor), in bytes, for the kernel's loop order.
// Ascending: how far the output's end may overlap the start of an input
// above it; descending: how far the input's end may overlap the start of an
// output above it. `family`: whose kernel's loop order.
int64_t algorithmic_safe_overlap(const Graph& graph, int32_t op, int32_t input_tensor, int32_t output_tensor,
                                 bool descending = false, KernelFamily family = KernelFamily::kTflmReference);
// The same with an existing interpreter (its memory is never touched; its
// schedule names the kernel family).
int64_t algorithmic_safe_overlap(const Interpreter& interpreter, int32_t op, int32_t input_tensor,
                                 int32_t output_tensor, bool descending = false);

}  // namespace dmo

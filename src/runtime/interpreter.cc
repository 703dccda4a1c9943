#include "dmo/runtime/interpreter.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "dmo/error.h"
#include "dmo/model/lifetime.h"
#include "dmo/model/subgraph_calls.h"
#include "dmo/ops/kernels.h"
#include "dmo/ops/walk_order.h"
#include "dmo/plan/plan.h"
#include "dmo/runtime/unwritten_reads.h"
#include "dmo/schedule/consumed_prefix.h"

namespace dmo {

Interpreter::Interpreter(const Graph& graph, TensorPlacement placement)
    : Interpreter(graph, placement, default_schedule(graph, placement.descending_ops)) {}

Interpreter::Interpreter(const Graph& graph, TensorPlacement placement, Schedule schedule)
    : graph_(graph),
      subgraph_(graph.main()),
      timeline_(model_timeline(graph)),
      runs_calls_(has_subgraph_calls(graph)),
      placement_(std::move(placement)),
      schedule_(std::move(schedule)) {
  if (placement_.arena_size < 0) {
    throw Error(fmt::format("{}: the placement's arena has a negative size ({} bytes)", graph.source,
                            placement_.arena_size));
  }
  const size_t tensor_count = timeline_.lifetimes.size();
  if (placement_.offsets.size() != subgraph_.tensors.size() && placement_.offsets.size() != tensor_count) {
    throw Error(fmt::format("{}: placement has {} offsets for {} tensors{}", graph.source, placement_.offsets.size(),
                            subgraph_.tensors.size(),
                            tensor_count != subgraph_.tensors.size()
                                ? fmt::format(" of subgraph 0 ({} in all subgraphs)", tensor_count)
                                : std::string()));
  }
  placement_.offsets.resize(tensor_count, -1);
  for (int32_t op : placement_.descending_ops) {
    if (op < 0 || static_cast<size_t>(op) >= subgraph_.ops.size()) {
      throw Error(fmt::format("{}: placement walks op {} descending, but subgraph 0 has {} ops", graph.source, op,
                              subgraph_.ops.size()));
    }
  }
  check_schedule(graph, schedule_);
  if (runs_calls_) {
    bool plain = schedule_.steps.size() == subgraph_.ops.size() && schedule_.views.empty();
    for (size_t i = 0; plain && i < schedule_.steps.size(); ++i) {
      plain = schedule_.steps[i].op == static_cast<int32_t>(i) && schedule_.steps[i].region.is_whole();
    }
    if (!plain) {
      throw Error(fmt::format("{}: a model whose ops call subgraphs runs one whole step per op of subgraph 0, in order",
                              graph.source));
    }
  }
  view_index_.assign(tensor_count, -1);
  for (size_t v = 0; v < schedule_.views.size(); ++v) {
    view_index_[static_cast<size_t>(schedule_.views[v].tensor)] = static_cast<int32_t>(v);
  }
  bands_.assign(tensor_count, BandBuffer{});
  band_strides_.resize(tensor_count);
  for (const BandBuffer& band : schedule_.band_buffers) {
    const Shape& shape = subgraph_.tensors[static_cast<size_t>(band.tensor)].shape;
    bands_[static_cast<size_t>(band.tensor)] = band;
    // Rows of fewer columns than the tensor's, or several batches (each
    // batch's band follows the previous one's): the band's own strides.
    const int64_t row = int64_t{band.cols} * shape[3];
    if (shape[0] > 1 || band.cols < shape[2]) band_strides_[static_cast<size_t>(band.tensor)] = {band.rows * row, row, shape[3], 1};
  }
  for (size_t t = 0; t < tensor_count; ++t) {
    const Tensor& tensor = flat_tensor(static_cast<int32_t>(t));
    const bool covered = t < subgraph_.tensors.size() || placement_.offsets[t] >= 0;
    const int64_t stored_bytes = bands_[t].rows > 0 ? band_bytes(tensor, bands_[t]) : tensor.byte_size;
    if (covered && tflm_plans_tensor(tensor) && view_index_[t] < 0 &&
        (placement_.offsets[t] < 0 || placement_.offsets[t] > placement_.arena_size - stored_bytes)) {
      throw Error(fmt::format("{}: tensor {} '{}' is not inside the {}-byte arena", graph.source, t, tensor.name,
                              placement_.arena_size));
    }
  }
  // Steps that walk descending or compute a region need a kernel that can.
  for (const ScheduleStep& step : schedule_.steps) {
    if (!step.descending && step.region.is_whole()) continue;
    const Op& o = subgraph_.ops[static_cast<size_t>(step.op)];
    if (is_cmsis_nn(schedule_.kernels)) {
      throw Error(fmt::format("{}: op {} ({}): {} kernels walk their output ascending only; the schedule walks it {}",
                              graph.source, step.op, o.name(), kernel_family_name(schedule_.kernels),
                              step.descending ? "descending" : "over a region"));
    }
    if (!kernel_walks_descending(static_cast<OpKind>(o.builtin_code))) {
      throw Error(fmt::format("{}: the schedule walks op {} ({}) {}, which its kernel cannot", graph.source, step.op,
                              o.name(), step.descending ? "descending" : "over a region"));
    }
  }
  last_step_of_op_ = last_step_of_ops(schedule_, subgraph_.ops.size());
  prepared_.resize(timeline_.op_time.size());
  called_once_.assign(timeline_.op_time.size(), 0);
  arena_ = ZeroedBytes(static_cast<size_t>(placement_.arena_size));
  persistent_offsets_.assign(tensor_count, -1);
  int64_t persistent = 0;
  for (size_t t = 0; t < tensor_count; ++t) {
    const Tensor& tensor = flat_tensor(static_cast<int32_t>(t));
    if (!tensor.is_variable || tensor.is_constant) continue;
    persistent_offsets_[t] = persistent;
    persistent += align_up(tensor.byte_size, 16);
  }
  persistent_ = ZeroedBytes(static_cast<size_t>(persistent));
  place_outside_arena();
  reset_variables();
  resources_ = std::make_unique<ResourceVariables>(graph, timeline_);
  // The tensors the copies of a call write and read, per subgraph.
  subgraph_inputs_.resize(graph.subgraphs.size());
  subgraph_outputs_.resize(graph.subgraphs.size());
  for (size_t s = 0; s < graph.subgraphs.size(); ++s) {
    auto ref = [&](int32_t t, bool written) {
      const int32_t flat = timeline_.flat_tensor(static_cast<int32_t>(s), t);
      TensorRef r;
      r.tensor = &flat_tensor(flat);
      r.data = tensor_data(flat);
      r.index = flat;
      r.is_output = written;
      r.in_arena = !r.tensor->is_constant && persistent_offsets_[static_cast<size_t>(flat)] < 0 &&
                   placement_.offsets[static_cast<size_t>(flat)] >= 0;
      return r;
    };
    for (int32_t t : graph.subgraphs[s].inputs) subgraph_inputs_[s].push_back(ref(t, true));
    for (int32_t t : graph.subgraphs[s].outputs) subgraph_outputs_[s].push_back(ref(t, false));
  }
}

const Tensor& Interpreter::flat_tensor(int32_t t) const {
  const int32_t s = timeline_.subgraph_of_tensor(t);
  return graph_.subgraphs[static_cast<size_t>(s)].tensors[static_cast<size_t>(t - timeline_.first_tensor[static_cast<size_t>(s)])];
}

void Interpreter::place_outside_arena() {
  // Planned tensors of other subgraphs the placement leaves out: unshared.
  outside_offsets_.assign(placement_.offsets.size(), -1);
  int64_t outside = 0;
  for (size_t t = subgraph_.tensors.size(); t < placement_.offsets.size(); ++t) {
    const Tensor& tensor = flat_tensor(static_cast<int32_t>(t));
    if (placement_.offsets[t] >= 0 || !tflm_plans_tensor(tensor)) continue;
    outside_offsets_[t] = outside;
    outside += align_up(tensor.byte_size, 16);
  }
  outside_.assign(static_cast<size_t>(outside), 0);
}

uint8_t variable_reset_byte(const Tensor& tensor) {
  if (tensor.type == DataType::kInt8 && !tensor.quantization.zero_point.empty()) {
    return static_cast<uint8_t>(static_cast<int8_t>(tensor.quantization.zero_point[0]));
  }
  return 0;
}

void Interpreter::reset_variables() {
  // The storage is fresh (zeroed): its pages stay untouched until a kernel
  // needs them.
  for (size_t t = 0; t < persistent_offsets_.size(); ++t) {
    if (persistent_offsets_[t] < 0) continue;
    const Tensor& tensor = flat_tensor(static_cast<int32_t>(t));
    const uint8_t fill = variable_reset_byte(tensor);
    if (fill == 0) continue;
    std::memset(persistent_.data() + persistent_offsets_[t], fill, static_cast<size_t>(tensor.byte_size));
  }
}

const TensorView* Interpreter::view_of(int32_t t) const {
  const int32_t v = view_index_[static_cast<size_t>(t)];
  return v < 0 ? nullptr : &schedule_.views[static_cast<size_t>(v)];
}

uint8_t* Interpreter::tensor_data(int32_t t) const {
  const Tensor& tensor = flat_tensor(t);
  if (const TensorView* view = view_of(t)) {
    uint8_t* base = tensor_data(view->base);
    return base ? base + view->offset * int64_t{element_size(tensor.type).value_or(1)} : nullptr;
  }
  if (tensor.is_constant) return const_cast<uint8_t*>(tensor.data.data());
  if (persistent_offsets_[static_cast<size_t>(t)] >= 0) return persistent_.data() + persistent_offsets_[static_cast<size_t>(t)];
  if (placement_.offsets[static_cast<size_t>(t)] >= 0) return arena_.data() + placement_.offsets[static_cast<size_t>(t)];
  if (outside_offsets_[static_cast<size_t>(t)] >= 0) return outside_.data() + outside_offsets_[static_cast<size_t>(t)];
  return nullptr;  // zero-size tensor
}

void Interpreter::require_whole(int32_t t) const {
  if (bands_[static_cast<size_t>(t)].rows > 0) {
    throw Error(fmt::format("{}: tensor {} '{}' is held as a band of {} rows; it is never whole in memory",
                            graph_.source, t, flat_tensor(t).name, bands_[static_cast<size_t>(t)].rows));
  }
}

std::span<const uint8_t> Interpreter::tensor_bytes(int32_t t) const {
  if (t < 0 || static_cast<size_t>(t) >= placement_.offsets.size()) throw Error(fmt::format("{}: no tensor {}", graph_.source, t));
  require_whole(t);
  const Tensor& tensor = flat_tensor(t);
  if (view_of(t)) {
    throw Error(fmt::format("{}: tensor {} '{}' is a strided view into tensor {}; it has no bytes of its own",
                            graph_.source, t, tensor.name, view_of(t)->base));
  }
  const uint8_t* data = tensor_data(t);
  if (!data) return {};
  return {data, static_cast<size_t>(tensor.byte_size)};
}

std::vector<uint8_t> Interpreter::tensor_contents(int32_t t) const {
  if (t < 0 || static_cast<size_t>(t) >= placement_.offsets.size()) throw Error(fmt::format("{}: no tensor {}", graph_.source, t));
  require_whole(t);
  const Tensor& tensor = flat_tensor(t);
  const TensorView* view = view_of(t);
  if (!view) {
    auto bytes = tensor_bytes(t);
    return {bytes.begin(), bytes.end()};
  }
  TensorRef ref;
  ref.tensor = &tensor;
  ref.data = tensor_data(t);
  ref.strides = view->strides.data();
  const auto element = static_cast<size_t>(int64_t{element_size(tensor.type).value_or(1)});
  std::vector<uint8_t> out(static_cast<size_t>(tensor.byte_size));
  for (int64_t i = 0; i < tensor.element_count; ++i) {
    std::memcpy(out.data() + static_cast<size_t>(i) * element,
                ref.data + ref.storage_index(i) * static_cast<int64_t>(element), element);
  }
  return out;
}

int64_t Interpreter::input_bytes() const {
  int64_t total = 0;
  for (int32_t t : subgraph_.inputs) total += subgraph_.tensors[static_cast<size_t>(t)].byte_size;
  return total;
}

int64_t Interpreter::output_bytes() const {
  int64_t total = 0;
  for (int32_t t : subgraph_.outputs) total += subgraph_.tensors[static_cast<size_t>(t)].byte_size;
  return total;
}

void Interpreter::set_inputs(std::span<const uint8_t> bytes) {
  if (static_cast<int64_t>(bytes.size()) != input_bytes()) {
    throw Error(fmt::format("{}: the model's inputs take {} bytes, {} given", graph_.source, input_bytes(),
                            bytes.size()));
  }
  size_t at = 0;
  for (int32_t t : subgraph_.inputs) {
    size_t n = static_cast<size_t>(subgraph_.tensors[static_cast<size_t>(t)].byte_size);
    if (n) std::memcpy(tensor_data(t), bytes.data() + at, n);
    at += n;
  }
}

std::vector<uint8_t> Interpreter::outputs() const {
  std::vector<uint8_t> out;
  for (int32_t t : subgraph_.outputs) {
    std::vector<uint8_t> bytes = tensor_contents(t);
    out.insert(out.end(), bytes.begin(), bytes.end());
  }
  return out;
}

OpContext Interpreter::context(int32_t op_index) const {
  if (op_index < 0 || static_cast<size_t>(op_index) >= timeline_.op_time.size()) {
    throw Error(fmt::format("{}: no op {}", graph_.source, op_index));
  }
  const int32_t s = timeline_.subgraph_of_op(op_index);
  const Subgraph& sg = graph_.subgraphs[static_cast<size_t>(s)];
  OpContext ctx;
  ctx.subgraph = &sg;
  ctx.op = &sg.ops[static_cast<size_t>(op_index - timeline_.first_op[static_cast<size_t>(s)])];
  ctx.op_index = op_index;
  ctx.family = schedule_.kernels;
  ctx.resources = resources_.get();
  auto ref = [&](int32_t local, bool is_output) {
    TensorRef r;
    if (local == kNoTensor) return r;
    const int32_t t = timeline_.flat_tensor(s, local);
    r.tensor = &flat_tensor(t);
    r.data = tensor_data(t);
    r.index = t;
    r.is_output = is_output;
    const TensorView* view = view_of(t);
    const int32_t stored = view ? view->base : t;
    if (view) r.strides = view->strides.data();
    r.in_arena = !r.tensor->is_constant && persistent_offsets_[static_cast<size_t>(stored)] < 0 &&
                 placement_.offsets[static_cast<size_t>(stored)] >= 0;
    return r;
  };
  for (int32_t t : ctx.op->inputs) ctx.inputs.push_back(ref(t, false));
  for (int32_t t : ctx.op->outputs) ctx.outputs.push_back(ref(t, true));
  return ctx;
}

const Interpreter::PreparedOp& Interpreter::prepared_op(int32_t op) const {
  PreparedOp& prepared = prepared_.at(static_cast<size_t>(op));
  if (!prepared.kernel.valid() && !prepared.calls_subgraphs) {
    prepared.context = context(op);
    if (is_control_flow(static_cast<OpKind>(prepared.context.op->builtin_code))) {
      prepared.call = prepare_control_flow(prepared.context);
      prepared.calls_subgraphs = true;
    } else {
      prepared.kernel = prepare_kernel(prepared.context);
    }
  }
  return prepared;
}

const PreparedKernel& Interpreter::prepared(int32_t op) const { return prepared_op(op).kernel; }

void Interpreter::prepare_all() const {
  for (size_t op = 0; op < timeline_.op_time.size(); ++op) {
    const int32_t s = timeline_.subgraph_of_op(static_cast<int32_t>(op));
    if (s == 0 || timeline_.visited[static_cast<size_t>(s)]) prepared_op(static_cast<int32_t>(op));
  }
}

// What a control-flow op's eval calls (ops/control_flow.h): the called
// subgraphs' tensors, and their ops run through `memory`. With the
// checking policy each call counts time as the model timeline does.
template <class Memory>
class Interpreter::SubgraphCalls {
 public:
  SubgraphCalls(const Interpreter& interpreter, Memory& memory, int32_t op)
      : in_(interpreter), memory_(memory), op_(op) {}

  std::span<const TensorRef> inputs(int32_t s) const { return in_.subgraph_inputs_[static_cast<size_t>(s)]; }
  std::span<const TensorRef> outputs(int32_t s) const { return in_.subgraph_outputs_[static_cast<size_t>(s)]; }

  void enter(int32_t s) {
    release(s);
    at(in_.timeline_.entry_time[static_cast<size_t>(s)]);
  }
  void invoke(int32_t s) {
    in_.run_subgraph(s, memory_);
    at(in_.timeline_.exit_time[static_cast<size_t>(s)]);
  }
  void leave(int32_t s) { release(s); }
  bool first_call() {
    char& done = in_.called_once_[static_cast<size_t>(op_)];
    const bool first = !done;
    done = 1;
    return first;
  }

 private:
  // The copies of the calling op happen at `time`.
  void at(int32_t time) {
    if constexpr (std::is_same_v<Memory, CheckingMemory>) {
      memory_.begin_step(op_, time, in_.timeline_.op_end_time[static_cast<size_t>(op_)]);
    }
  }
  // The values subgraph s's earlier call left are dead.
  void release(int32_t s) {
    if constexpr (std::is_same_v<Memory, CheckingMemory>) {
      const auto first = static_cast<size_t>(in_.timeline_.first_tensor[static_cast<size_t>(s)]);
      const size_t count = in_.graph_.subgraphs[static_cast<size_t>(s)].tensors.size();
      for (size_t t = first; t < first + count; ++t) {
        const int64_t offset = in_.placement_.offsets[t];
        if (offset >= 0 && in_.persistent_offsets_[t] < 0) {
          memory_.release(static_cast<int32_t>(t), offset, in_.flat_tensor(static_cast<int32_t>(t)).byte_size);
        }
      }
    }
  }

  const Interpreter& in_;
  Memory& memory_;
  int32_t op_;
};

template <class Memory>
void Interpreter::eval_op(int32_t op, bool descending, const OutputRegion& region, Memory& memory) const {
  // The op's tensor references were built with its kernel: the arena and
  // the persistent storage never move, so each step reuses them.
  const PreparedOp& prepared = prepared_op(op);
  const KernelIO io{prepared.context.inputs, prepared.context.outputs, descending, region};
  if (prepared.calls_subgraphs) {
    SubgraphCalls<Memory> calls(*this, memory, op);
    eval_control_flow(prepared.call, io, calls, memory);
  } else {
    prepared.kernel.eval(io, memory);
  }
}

template <class Memory>
void Interpreter::run_subgraph(int32_t s, Memory& memory) const {
  const auto ops = static_cast<int32_t>(graph_.subgraphs[static_cast<size_t>(s)].ops.size());
  for (int32_t i = 0; i < ops; ++i) {
    const int32_t op = timeline_.flat_op(s, i);
    if constexpr (std::is_same_v<Memory, CheckingMemory>) {
      const auto at = static_cast<size_t>(op);
      memory.begin_step(op, timeline_.op_time[at], timeline_.op_end_time[at]);
    }
    eval_op(op, false, OutputRegion{}, memory);
  }
}

void Interpreter::place_in_band(TensorRef& ref, std::span<const BandPosition> bands) const {
  for (const BandPosition& band : bands) {
    if (band.tensor != ref.index) continue;
    // Element (y, x) is stored at band row y - first_row, column
    // x - first_col: the band's first byte is where element (first_row,
    // first_col) would be (the address is only ever offset back into the
    // band, so it is formed as an integer).
    const Shape& shape = ref.tensor->shape;
    const int64_t pixel_bytes = int64_t{shape[3]} * element_size(ref.tensor->type).value_or(1);
    const int64_t row_bytes = bands_[static_cast<size_t>(ref.index)].cols * pixel_bytes;
    ref.data = reinterpret_cast<uint8_t*>(reinterpret_cast<uintptr_t>(ref.data) -
                                          static_cast<uintptr_t>(band.first_row * row_bytes + band.first_col * pixel_bytes));
    const std::vector<int64_t>& strides = band_strides_[static_cast<size_t>(ref.index)];
    if (!strides.empty()) ref.strides = strides.data();
    return;
  }
}

Interpreter::StepOperands Interpreter::step_operands(const ScheduleStep& step) const {
  const PreparedOp& prepared = prepared_op(step.op);
  StepOperands operands{prepared.context.inputs, prepared.context.outputs};
  for (TensorRef& ref : operands.inputs) place_in_band(ref, step.bands);
  for (TensorRef& ref : operands.outputs) place_in_band(ref, step.bands);
  return operands;
}

template <class Memory>
void Interpreter::eval_step(const ScheduleStep& step, Memory& memory) const {
  if (step.bands.empty()) {
    eval_op(step.op, step.descending, step.region, memory);
    return;
  }
  // A step of a split stage: its band-buffered tensors indexed from their bands.
  const PreparedOp& prepared = prepared_op(step.op);
  std::vector<TensorRef> inputs = prepared.context.inputs, outputs = prepared.context.outputs;
  for (TensorRef& ref : inputs) place_in_band(ref, step.bands);
  for (TensorRef& ref : outputs) place_in_band(ref, step.bands);
  prepared.kernel.eval(KernelIO{inputs, outputs, step.descending, step.region}, memory);
}

void Interpreter::run_address_only(AddressMemory& memory, size_t first_step, size_t end_step) const {
  end_step = std::min(end_step, schedule_.steps.size());
  for (size_t i = first_step; i < end_step; ++i) eval_step(schedule_.steps[i], memory);
}

void Interpreter::run(const OpObserver& after_op) {
  DirectMemory memory;
  for (size_t i = 0; i < schedule_.steps.size(); ++i) {
    eval_step(schedule_.steps[i], memory);
    if (after_op && is_last_step(i)) after_op(schedule_.steps[i].op);
  }
}

void Interpreter::run_op(int32_t op) {
  if (op >= 0 && static_cast<size_t>(op) < subgraph_.ops.size()) {
    for (const std::vector<int32_t>* tensors : {&subgraph_.ops[static_cast<size_t>(op)].inputs, &subgraph_.ops[static_cast<size_t>(op)].outputs}) {
      for (int32_t t : *tensors) {
        if (t != kNoTensor) require_whole(t);
      }
    }
  }
  DirectMemory memory;
  ScheduleStep step;
  step.op = op;
  // The op's walk in this schedule.
  for (const ScheduleStep& s : schedule_.steps) step.descending |= s.op == op && s.descending;
  eval_step(step, memory);
}

void Interpreter::set_tensor(int32_t t, std::span<const uint8_t> bytes) {
  if (t < 0 || static_cast<size_t>(t) >= placement_.offsets.size()) throw Error(fmt::format("{}: no tensor {}", graph_.source, t));
  const Tensor& tensor = flat_tensor(t);
  if (tensor.is_constant || static_cast<int64_t>(bytes.size()) != tensor.byte_size) {
    throw Error(fmt::format("{}: tensor {} '{}' takes {} bytes and is {}constant; {} given", graph_.source, t,
                            tensor.name, tensor.byte_size, tensor.is_constant ? "" : "not ", bytes.size()));
  }
  if (view_of(t)) {
    throw Error(fmt::format("{}: tensor {} '{}' is a view into tensor {}; set the base tensor", graph_.source, t,
                            tensor.name, view_of(t)->base));
  }
  require_whole(t);
  if (!bytes.empty()) std::memcpy(tensor_data(t), bytes.data(), bytes.size());
}

ArenaTenancy Interpreter::whole_model_tenancy() const {
  // Time is the model timeline's: a value is needed until its lifetime
  // ends (a subgraph 0 output to the end), as TFLM plans it.
  const size_t n = placement_.offsets.size();
  ArenaTenancy tenancy;
  tenancy.value_of.assign(n, ArenaTenancy::kOutsideArena);
  tenancy.offset.assign(n, -1);
  tenancy.needed_until.assign(n, -1);
  tenancy.op_reads.resize(timeline_.op_time.size());
  for (size_t t = 0; t < n; ++t) {
    if (flat_tensor(static_cast<int32_t>(t)).is_constant || persistent_offsets_[t] >= 0 || placement_.offsets[t] < 0) {
      continue;
    }
    tenancy.value_of[t] = static_cast<int32_t>(t);
    tenancy.offset[t] = placement_.offsets[t];
    tenancy.needed_until[t] = timeline_.lifetimes[t].last;
  }
  for (const UnwrittenRead& read : unwritten_read_tensors(subgraph_)) {
    if (tenancy.value_of[static_cast<size_t>(read.tensor)] >= 0) {
      tenancy.value_of[static_cast<size_t>(read.tensor)] = ArenaTenancy::kUnchecked;
    }
  }
  for (size_t op = 0; op < timeline_.op_time.size(); ++op) {
    const int32_t s = timeline_.subgraph_of_op(static_cast<int32_t>(op));
    const Op& o = graph_.subgraphs[static_cast<size_t>(s)].ops[op - static_cast<size_t>(timeline_.first_op[static_cast<size_t>(s)])];
    for (int32_t t : o.inputs) {
      if (t == kNoTensor) continue;
      const int32_t v = tenancy.value_of[static_cast<size_t>(timeline_.flat_tensor(s, t))];
      if (v >= 0) tenancy.op_reads[op].push_back(v);
    }
  }
  for (int32_t t : subgraph_.outputs) {
    if (tenancy.value_of[static_cast<size_t>(t)] >= 0) tenancy.needed_until[static_cast<size_t>(t)] = ArenaTenancy::kNeededToEnd;
  }
  return tenancy;
}

ArenaTenancy Interpreter::arena_tenancy() const {
  if (runs_calls_) return whole_model_tenancy();
  const size_t n = placement_.offsets.size();
  ArenaTenancy tenancy;
  tenancy.value_of.assign(n, ArenaTenancy::kOutsideArena);
  tenancy.offset.assign(n, -1);
  tenancy.needed_until.assign(n, -1);
  tenancy.op_reads.resize(subgraph_.ops.size());
  for (size_t t = 0; t < n; ++t) {
    // A view's bytes hold its base's value.
    auto stored = static_cast<int32_t>(t);
    while (const TensorView* view = view_of(stored)) stored = view->base;
    const auto s = static_cast<size_t>(stored);
    const Tensor& tensor = flat_tensor(stored);
    if (tensor.is_constant || persistent_offsets_[s] >= 0 || placement_.offsets[s] < 0) continue;
    tenancy.value_of[t] = stored;
    tenancy.offset[s] = placement_.offsets[s];
  }
  for (const UnwrittenRead& read : unwritten_read_tensors(subgraph_)) {
    if (tenancy.value_of[static_cast<size_t>(read.tensor)] >= 0) {
      tenancy.value_of[static_cast<size_t>(read.tensor)] = ArenaTenancy::kUnchecked;
    }
  }
  auto value = [&](int32_t t) { return t == kNoTensor ? ArenaTenancy::kOutsideArena : tenancy.value_of[static_cast<size_t>(t)]; };
  for (size_t i = 0; i < schedule_.steps.size(); ++i) {
    const auto op = static_cast<size_t>(schedule_.steps[i].op);
    for (int32_t t : subgraph_.ops[op].inputs) {
      const int32_t v = value(t);
      if (v < 0) continue;
      tenancy.needed_until[static_cast<size_t>(v)] = static_cast<int32_t>(i);
      tenancy.op_reads[op].push_back(v);
    }
  }
  // The steps of a split stage are one op for clobbers, as the regions of
  // one op are: each of its ops reads what the stage reads, so a value the
  // stage itself reads last (its dying input, under the stage's overlap)
  // may be overwritten in it, and a later tile's load of a lost byte is
  // the clobber.
  for (const SplitStage& stage : schedule_.stages) {
    std::vector<int32_t> reads;
    for (int32_t op = stage.first_op; op <= stage.last_op; ++op) {
      const std::vector<int32_t>& of_op = tenancy.op_reads[static_cast<size_t>(op)];
      reads.insert(reads.end(), of_op.begin(), of_op.end());
    }
    std::sort(reads.begin(), reads.end());
    reads.erase(std::unique(reads.begin(), reads.end()), reads.end());
    for (int32_t op = stage.first_op; op <= stage.last_op; ++op) tenancy.op_reads[static_cast<size_t>(op)] = reads;
  }
  for (int32_t t : subgraph_.outputs) {
    if (value(t) >= 0) tenancy.needed_until[static_cast<size_t>(value(t))] = ArenaTenancy::kNeededToEnd;
  }
  // Bytes slices have consumed hold nothing needed (schedule/consumed_prefix.h).
  tenancy.dead_prefix.resize(n);
  for (ConsumedPrefix& c : consumed_prefixes(graph_, schedule_)) {
    if (value(c.tensor) == c.tensor) tenancy.dead_prefix[static_cast<size_t>(c.tensor)] = std::move(c.dead_bytes);
  }
  tenancy.first_written.assign(n, ArenaTenancy::kNeededToEnd);
  for (int32_t t : subgraph_.inputs) {
    if (value(t) >= 0) tenancy.first_written[static_cast<size_t>(value(t))] = -1;
  }
  for (size_t i = schedule_.steps.size(); i-- > 0;) {
    for (int32_t t : subgraph_.ops[static_cast<size_t>(schedule_.steps[i].op)].outputs) {
      const int32_t v = value(t);
      if (v >= 0 && tenancy.first_written[static_cast<size_t>(v)] != -1) {
        tenancy.first_written[static_cast<size_t>(v)] = static_cast<int32_t>(i);
      }
    }
  }
  return tenancy;
}

std::vector<Clobber> Interpreter::run_checked_all(const OpObserver& after_op) {
  CheckingMemory memory(arena_.data(), placement_.arena_size, arena_tenancy());
  for (int32_t t : subgraph_.inputs) {
    const uint8_t* data = tensor_data(t);
    const int64_t bytes = subgraph_.tensors[static_cast<size_t>(t)].byte_size;
    if (data && data >= arena_.data() && data + bytes <= arena_.data() + arena_.size() && !view_of(t)) {
      memory.hold(t, data - arena_.data(), bytes);
    }
  }
  for (size_t i = 0; i < schedule_.steps.size(); ++i) {
    const ScheduleStep& step = schedule_.steps[i];
    // The regions of one op are one op for clobbers: an input byte its
    // earlier region overwrote is gone for its later regions too. Where ops
    // call subgraphs, time is the model timeline's (one step per op).
    if (runs_calls_) {
      const auto op = static_cast<size_t>(step.op);
      memory.begin_step(step.op, timeline_.op_time[op], timeline_.op_end_time[op]);
    } else {
      memory.begin_step(step.op, static_cast<int32_t>(i), last_step_of_unit(step.op));
    }
    eval_step(step, memory);
    if (after_op && is_last_step(i)) after_op(step.op);
  }
  return memory.clobbers();
}

std::optional<Clobber> Interpreter::run_checked(const OpObserver& after_op) {
  std::vector<Clobber> clobbers = run_checked_all(after_op);
  if (clobbers.empty()) return std::nullopt;
  return clobbers.front();
}

int64_t algorithmic_safe_overlap(const Interpreter& interpreter, int32_t op, int32_t input_tensor,
                                 int32_t output_tensor, bool descending) {
  OpContext ctx = interpreter.context(op);
  ctx.descending = descending;
  // Tensor indices are flat: an op of a called subgraph names its own tensors past subgraph 0's.
  const ModelTimeline& timeline = interpreter.timeline();
  const auto local = [&](int32_t flat) {
    return static_cast<size_t>(flat - timeline.first_tensor[static_cast<size_t>(timeline.subgraph_of_tensor(flat))]);
  };
  const Tensor& input = ctx.subgraph->tensors.at(local(input_tensor));
  const Tensor& output = ctx.subgraph->tensors.at(local(output_tensor));
  AddressMemory memory(input_tensor, output_tensor, input.byte_size, output.byte_size, descending);
  // Prepared here rather than taken from the interpreter: the overlap
  // engines call this from several threads.
  try {
    run_kernel(ctx, memory);
  } catch (const AddressBudgetExceeded& e) {
    ctx.fail(e.what());
  }
  return memory.safe_overlap();
}

int64_t algorithmic_safe_overlap(const Graph& graph, int32_t op, int32_t input_tensor, int32_t output_tensor,
                                 bool descending, KernelFamily family) {
  Schedule schedule = default_schedule(graph);
  schedule.kernels = family;
  return algorithmic_safe_overlap(Interpreter(graph, unshared_placement(graph.main()), std::move(schedule)), op,
                                  input_tensor, output_tensor, descending);
}

void require_kernels(const Graph& graph, KernelFamily family) {
  Schedule schedule = default_schedule(graph);
  schedule.kernels = family;
  const Interpreter probe(graph, unshared_placement(graph.main()), std::move(schedule));
  probe.prepare_all();
}

}  // namespace dmo

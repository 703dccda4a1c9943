#include "dmo/schedule/consumed_prefix.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>

#include "dmo/model/data_type.h"

namespace dmo {

namespace {

// The values of a constant INT32 operand, nothing when it is not one.
std::optional<std::vector<int64_t>> constant_int32s(const Subgraph& sg, const Op& op, size_t input) {
  if (input >= op.inputs.size() || op.inputs[input] < 0) return std::nullopt;
  const Tensor& t = sg.tensors[static_cast<size_t>(op.inputs[input])];
  if (!t.is_constant || t.type != DataType::kInt32 || t.data.size() < static_cast<size_t>(t.element_count) * 4) {
    return std::nullopt;
  }
  std::vector<int64_t> values(static_cast<size_t>(t.element_count));
  for (size_t i = 0; i < values.size(); ++i) {
    int32_t v = 0;
    std::memcpy(&v, t.data.data() + i * 4, 4);
    values[i] = v;
  }
  return values;
}

// The byte of input 0 where `op` starts reading, a lower bound of every
// byte it reads; 0 when that is not known.
int64_t first_byte_read(const Subgraph& sg, const Op& op) {
  const bool strided = op.is(OpKind::kStridedSlice);
  if (!strided && !op.is(OpKind::kSlice)) return 0;
  const Tensor& x = sg.tensors[static_cast<size_t>(op.inputs[0])];
  const std::optional<std::vector<int64_t>> begin = constant_int32s(sg, op, 1);
  if (!begin || begin->size() != x.shape.size()) return 0;
  int32_t begin_mask = 0;
  if (strided) {
    const auto* p = std::get_if<StridedSliceParams>(&op.params);
    if (!p || p->ellipsis_mask != 0 || p->new_axis_mask != 0) return 0;
    const std::optional<std::vector<int64_t>> strides = constant_int32s(sg, op, 3);
    if (!strides || strides->size() != x.shape.size()) return 0;
    if (std::any_of(strides->begin(), strides->end(), [](int64_t s) { return s < 1; })) return 0;
    begin_mask = p->begin_mask;
  }
  int64_t flat = 0;
  for (size_t d = 0; d < x.shape.size(); ++d) {
    const int64_t extent = x.shape[d];
    int64_t b = (begin_mask >> d) & 1 ? 0 : (*begin)[d];
    if (b < 0) b += extent;
    flat = flat * extent + std::clamp<int64_t>(b, 0, std::max<int64_t>(extent - 1, 0));
  }
  return flat * element_size(x.type).value_or(1);
}

}  // namespace

std::vector<ConsumedPrefix> consumed_prefixes(const Graph& graph, const Schedule& schedule) {
  std::vector<ConsumedPrefix> out;
  if (!schedule.stages.empty() || graph.subgraphs.size() > 1) return out;
  const Subgraph& sg = graph.main();
  const size_t steps = schedule.steps.size();
  // The tensors some slice reads from past their start.
  std::vector<bool> sliced(sg.tensors.size(), false);
  for (const ScheduleStep& step : schedule.steps) {
    const Op& op = sg.ops[static_cast<size_t>(step.op)];
    if (!op.inputs.empty() && op.inputs[0] >= 0 && first_byte_read(sg, op) > 0) {
      sliced[static_cast<size_t>(op.inputs[0])] = true;
    }
  }
  for (int32_t t : sg.outputs) {
    if (t >= 0) sliced[static_cast<size_t>(t)] = false;
  }
  for (size_t x = 0; x < sg.tensors.size(); ++x) {
    if (!sliced[x]) continue;
    ConsumedPrefix c;
    c.tensor = static_cast<int32_t>(x);
    c.dead_bytes.assign(steps + 1, std::numeric_limits<int64_t>::max());
    for (size_t s = steps; s-- > 0;) {
      c.dead_bytes[s] = c.dead_bytes[s + 1];
      const Op& op = sg.ops[static_cast<size_t>(schedule.steps[s].op)];
      for (size_t i = 0; i < op.inputs.size(); ++i) {
        if (op.inputs[i] != c.tensor) continue;
        const int64_t from = i == 0 ? first_byte_read(sg, op) : 0;
        c.dead_bytes[s] = std::min(c.dead_bytes[s], from);
        if (from > 0) c.first_slice_op = schedule.steps[s].op;
      }
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace dmo

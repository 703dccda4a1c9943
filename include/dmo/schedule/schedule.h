// The execution schedule: the one description of an inference that the
// interpreter, the memory-problem builder, the safe-overlap engines, the plan
// validator and the code generator all follow. Nothing else decides
// execution order.
//
// A step runs one op of one subgraph on a region of its output (all of it
// by default), walking ascending or descending. A view stores a tensor
// inside another one (a producer writing straight into its slice of a
// concatenation): element i of the tensor's dense row-major order lives at
// element `offset + sum(coords(i)[d] * strides[d])` of its base tensor.
// A band buffer stores only some rows (and columns) of an intermediate of a
// split stage (schedule/split_stage.h): each step names the first row and
// column its band holds.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dmo/model/graph.h"
#include "dmo/ops/kernel_family.h"
#include "dmo/ops/output_region.h"
#include "dmo/schedule/split_stage.h"

namespace dmo {

// Where the band of a band-buffered tensor starts during one step: element
// (y, x) of the tensor is stored at row y - first_row, column x - first_col
// of its band buffer.
struct BandPosition {
  int32_t tensor = 0;
  int32_t first_row = 0;
  int32_t first_col = 0;
};

struct ScheduleStep {
  int32_t subgraph = 0;
  int32_t op = 0;
  bool descending = false;  // walk the output from its last element to its first
  OutputRegion region;      // the part of output 0 this step computes
  std::vector<BandPosition> bands = {};  // one per band-buffered tensor the op reads or writes
};

// An NHWC tensor stored as `rows` rows of `cols` columns (per batch)
// instead of all of them: only a band of it is in memory at a time.
struct BandBuffer {
  int32_t tensor = 0;
  int32_t rows = 0;
  int32_t cols = 0;
};

struct TensorView {
  int32_t tensor = 0;
  int32_t base = 0;
  int64_t offset = 0;            // elements into the base tensor
  std::vector<int64_t> strides;  // elements, one per dimension of `tensor`
};

struct Schedule {
  std::vector<ScheduleStep> steps;
  std::vector<TensorView> views;
  // The kernels every step runs: their loop order decides each op's O_s.
  KernelFamily kernels = KernelFamily::kTflmReference;
  // The split stages the steps run tile by tile (transform/split_schedule.h)
  // and the band buffers of their intermediates.
  std::vector<SplitStage> stages;
  std::vector<BandBuffer> band_buffers;
};

// The band buffer of `tensor`, nullptr when it is stored whole.
const BandBuffer* band_buffer_of(const Schedule& schedule, int32_t tensor);

// Bytes of a band of `rows` rows of `cols` columns of an NHWC tensor.
int64_t band_bytes(const Tensor& tensor, int32_t rows, int32_t cols);

// Bytes of a tensor's band buffer.
int64_t band_bytes(const Tensor& tensor, const BandBuffer& band);

// The split stage `op` runs in, nullptr for none.
const SplitStage* split_stage_of(const Schedule& schedule, int32_t op);

// Whether `op` runs inside one of the schedule's split stages.
bool runs_in_split_stage(const Schedule& schedule, int32_t op);

// The steps [first, end) that run a stage's ops (contiguous, every tile of
// it); first == end when no step does.
struct StepRange {
  size_t first = 0, end = 0;
};
StepRange stage_steps(const Schedule& schedule, const SplitStage& stage);

// One whole-output, ascending step per op of subgraph 0, in file order.
Schedule default_schedule(const Graph& graph);

// The same with the ops in `descending_ops` walking descending.
Schedule default_schedule(const Graph& graph, const std::vector<int32_t>& descending_ops);

// The ops of subgraph 0 some step of which walks descending, sorted.
std::vector<int32_t> descending_ops(const Schedule& schedule);

// Per op of subgraph 0 (`op_count` of them): the index of the last step
// that runs it, -1 for an op no step runs. An op's inputs are read until then.
std::vector<int32_t> last_step_of_ops(const Schedule& schedule, size_t op_count);

// Throws dmo::Error naming the step or view when the schedule does not fit
// the graph: subgraph or op out of range, a region outside the output or on
// an output that is not NHWC, a view whose elements fall outside its base
// or whose types differ, a tensor viewed twice or into itself, a band
// buffer of a tensor that is not an NHWC intermediate, a step touching a
// band-buffered tensor without saying where its band starts, or writing
// rows outside it.
void check_schedule(const Graph& graph, const Schedule& schedule);

// The views that make the producers of a CONCATENATION's inputs write
// straight into their slice of its output (one view per input).
std::vector<TensorView> concatenation_views(const Subgraph& subgraph, int32_t concat_op);

// The same for a PACK: input i is the output's slice i along the new axis.
std::vector<TensorView> pack_views(const Subgraph& subgraph, int32_t pack_op);

}  // namespace dmo

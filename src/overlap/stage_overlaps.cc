#include "dmo/overlap/stage_overlaps.h"

#include <algorithm>

#include "dmo/model/safe_overlap_formula.h"
#include "dmo/overlap/on_every_core.h"
#include "dmo/overlap/overlap_candidates.h"
#include "dmo/runtime/interpreter.h"
#include "dmo/transform/receptive_field.h"

namespace dmo {

namespace {

int64_t pixel_bytes(const Tensor& t) {
  return t.byte_size / (int64_t{t.shape[0]} * t.shape[1] * t.shape[2]);
}

// Tile by tile: the lowest input byte the first op can read (its band's
// first row and column, batch 0) before the highest output byte the last op
// can have written (its last row's last column, last batch). Every real
// read is at or above, every real write at or below, so the fold gives at
// most the loop nests' O_s.
int64_t closed_form_overlap(const Graph& graph, const StageTiling& tiling, const Tensor& input,
                            const Tensor& output) {
  const AxisWindow row_window_of_first = *row_window(graph.main(), tiling.stage.first_op);
  const AxisWindow col_window_of_first = *column_window(graph.main(), tiling.stage.first_op);
  const int64_t in_pixel = pixel_bytes(input), out_pixel = pixel_bytes(output);
  const int64_t in_width = input.shape[2], out_width = output.shape[2];
  const int64_t last_batch_start = (int64_t{output.shape[0]} - 1) * output.shape[1];
  SafeOverlapFold fold;
  for (size_t tile = 0; tile < tiling.rows.size(); ++tile) {
    const IndexRange read_rows = input_range(row_window_of_first, tiling.rows[tile].front());
    const IndexRange read_cols = input_range(col_window_of_first, tiling.cols[tile].front());
    if (read_rows.size() > 0 && read_cols.size() > 0) {
      fold.read((read_rows.begin * in_width + read_cols.begin) * in_pixel);
    }
    const IndexRange rows = tiling.rows[tile].back(), cols = tiling.cols[tile].back();
    if (rows.size() > 0 && cols.size() > 0) {
      fold.write(((last_batch_start + rows.end - 1) * out_width + cols.end) * out_pixel - 1);
    }
  }
  return fold.safe_overlap(output.byte_size);
}

}  // namespace

std::vector<StageOverlap> compute_stage_overlaps(const Graph& graph, const Schedule& schedule,
                                                 const SafeOverlapOptions& options, StageOverlapDepth depth,
                                                 StageTilingMemo* memo, const std::vector<Lifetime>* lifetimes) {
  std::vector<StageOverlap> result;
  if (schedule.stages.empty()) return result;
  StageTilingMemo own(graph);
  StageTilingMemo& tilings = memo ? *memo : own;
  const Subgraph& sg = graph.main();
  const std::vector<OverlapCandidate> candidates =
      lifetimes ? overlap_candidates(graph, schedule, *lifetimes, options.preserve_graph_inputs)
                : overlap_candidates(graph, schedule, options.preserve_graph_inputs);
  std::optional<Interpreter> interpreter;
  if (depth == StageOverlapDepth::kLoopNests && options.method != OverlapMethod::kNone) {
    // The stage's steps run the kernels the plan is for.
    Schedule own_kernels = schedule;
    own_kernels.kernels = own_kernels_family(options.families);
    interpreter.emplace(graph, unshared_placement(sg), std::move(own_kernels));
  }
  for (const SplitStage& stage : schedule.stages) {
    StageOverlap s;
    s.stage = stage;
    s.input = sg.ops[static_cast<size_t>(stage.first_op)].inputs[0];
    s.output = sg.ops[static_cast<size_t>(stage.last_op)].outputs[0];
    const Tensor& input = sg.tensors[static_cast<size_t>(s.input)];
    const Tensor& output = sg.tensors[static_cast<size_t>(s.output)];
    s.input_bytes = input.byte_size;
    s.output_bytes = output.byte_size;
    // The first op's candidate says whether its input 0 dies there; no
    // other op of the stage may read it (the closed form follows input 0).
    const OverlapCandidate& first = candidates[static_cast<size_t>(stage.first_op)];
    bool read_later_in_stage = false;
    for (int32_t op = stage.first_op + 1; op <= stage.last_op; ++op) {
      const std::vector<int32_t>& inputs = sg.ops[static_cast<size_t>(op)].inputs;
      read_later_in_stage |= std::find(inputs.begin(), inputs.end(), s.input) != inputs.end();
    }
    s.input_dies = first.input == s.input && first.input_dies && !read_later_in_stage && s.input != s.output;
    if (options.method != OverlapMethod::kNone) {
      s.analytic = closed_form_overlap(graph, tilings.tiling(stage), input, output);
    }
    result.push_back(s);
  }
  if (interpreter) {
    // The stages' loop nests side by side: the address-only policy never
    // touches the interpreter's memory, and the stages share no op (each
    // prepares its own ops' kernels).
    on_every_core(result.size(), 1, [&](size_t i, size_t) {
      StageOverlap& s = result[i];
      AddressMemory memory(s.input, s.output, s.input_bytes, s.output_bytes);
      const StepRange steps = stage_steps(schedule, s.stage);
      // Only the steps of ops reading the input or writing the output
      // fold into O_s; the address-only policy reads no values, so the
      // steps between them need not run.
      auto touches_pair = [&](const ScheduleStep& step) {
        const Op& op = sg.ops[static_cast<size_t>(step.op)];
        return std::find(op.inputs.begin(), op.inputs.end(), s.input) != op.inputs.end() ||
               std::find(op.outputs.begin(), op.outputs.end(), s.output) != op.outputs.end();
      };
      try {
        for (size_t step = steps.first; step < steps.end; ++step) {
          if (touches_pair(schedule.steps[step])) interpreter->run_address_only(memory, step, step + 1);
        }
        s.algorithmic = memory.safe_overlap();
      } catch (const AddressBudgetExceeded&) {
        // Too large to analyse (model/limits.h): the closed form stands.
      }
    });
  }
  for (StageOverlap& s : result) {
    if (s.input_dies && options.method != OverlapMethod::kNone) {
      const int64_t chosen =
          options.method == OverlapMethod::kAlgorithmic && s.algorithmic ? *s.algorithmic : *s.analytic;
      s.used_bytes = chosen / options.alignment * options.alignment;
    }
  }
  return result;
}

void add_stage_overlap_pairs(MemoryProblem& problem, const std::vector<StageOverlap>& stages) {
  auto buffer_of = [&](int32_t tensor) {
    for (size_t b = 0; b < problem.buffers.size(); ++b) {
      if (problem.buffers[b].tensor == tensor) return static_cast<int32_t>(b);
    }
    return -1;
  };
  for (const StageOverlap& s : stages) {
    if (s.used_bytes <= 0) continue;
    const int32_t out = buffer_of(s.output), in = buffer_of(s.input);
    if (out < 0 || in < 0) continue;
    problem.overlaps.push_back({s.stage.first_op, out, in, s.used_bytes, 0});
  }
}

void unuse_split_op_overlaps(const Schedule& schedule, std::vector<OpOverlap>& overlaps) {
  for (OpOverlap& o : overlaps) {
    if (runs_in_split_stage(schedule, o.pair.op)) o.used_bytes = o.used_descending_bytes = 0;
  }
}

}  // namespace dmo

#include "dmo/transform/tiled_stages.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "dmo/error.h"
#include "dmo/model/data_type.h"
#include "dmo/transform/receptive_field.h"
#include "dmo/transform/stage_tiling.h"

namespace dmo {

namespace {

// The rows (or columns) a band of outputs reads, before clipping to the
// input: the padding the band needs above and below it.
struct BandPadding {
  int32_t before = 0, after = 0;
};

BandPadding band_padding(const AxisWindow& w, IndexRange outputs) {
  const int64_t lo = int64_t{outputs.begin} * w.stride - w.pad_before;
  const int64_t hi = int64_t{outputs.end - 1} * w.stride - w.pad_before + int64_t{w.filter_size - 1} * w.dilation;
  return {static_cast<int32_t>(std::max<int64_t>(0, -lo)),
          static_cast<int32_t>(std::max<int64_t>(0, hi - (w.input_extent - 1)))};
}

template <class T>
std::vector<uint8_t> bytes_of(const std::vector<T>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(T));
  if (!bytes.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

// Appends tensors and ops to subgraph 0.
class Tiler {
 public:
  // New constants get buffers after every buffer the graph uses.
  Tiler(const Graph& graph, Subgraph& sg) : sg_(sg), source_(graph.source) {
    for (const Subgraph& s : graph.subgraphs) {
      for (const Tensor& t : s.tensors) next_buffer_ = std::max(next_buffer_, t.buffer_index + 1);
    }
    for (const MetadataEntry& m : graph.metadata) {
      next_buffer_ = std::max(next_buffer_, static_cast<int32_t>(m.buffer_index) + 1);
    }
  }

  // A tensor like `like` with `rows` rows (NHWC axis 1) and `extra_cols`
  // more columns.
  int32_t band(int32_t like, int32_t rows, int32_t extra_cols, const std::string& name) {
    Tensor t = sg_.tensors[static_cast<size_t>(like)];
    t.name = name;
    t.shape[1] = rows;
    t.shape[2] += extra_cols;
    t.data.clear();
    t.is_constant = false;
    t.is_variable = false;
    t.buffer_index = 0;
    t.element_count = int64_t{1};
    for (int32_t d : t.shape) t.element_count *= d;
    t.byte_size = t.element_count * element_size(t.type).value_or(1);
    return push(std::move(t));
  }

  int32_t int32_constant(const std::string& name, const Shape& shape, const std::vector<int32_t>& values) {
    Tensor t;
    t.name = name;
    t.type = DataType::kInt32;
    t.shape = shape;
    t.element_count = static_cast<int64_t>(values.size());
    t.byte_size = t.element_count * 4;
    t.data = bytes_of(values);
    t.is_constant = true;
    t.buffer_index = next_buffer_++;
    return push(std::move(t));
  }

  // A one-element constant of `type` holding its lowest value (PADV2's pad
  // value for max pooling: no tap inside the input is below it).
  int32_t lowest_constant(const std::string& name, DataType type, const Quantization& quant) {
    Tensor t;
    t.name = name;
    t.type = type;
    t.shape = {1};
    t.quantization = quant;
    t.element_count = 1;
    switch (type) {
      case DataType::kInt8: t.data = {0x80}; break;
      case DataType::kUInt8: t.data = {0x00}; break;
      case DataType::kInt16: t.data = bytes_of(std::vector<int16_t>{std::numeric_limits<int16_t>::lowest()}); break;
      case DataType::kFloat32: t.data = bytes_of(std::vector<float>{std::numeric_limits<float>::lowest()}); break;
      default: throw Error(fmt::format("{}: max pooling of {} cannot be padded for export", source_,
                                       data_type_name(type)));
    }
    t.byte_size = static_cast<int64_t>(t.data.size());
    t.is_constant = true;
    t.buffer_index = next_buffer_++;
    return push(std::move(t));
  }

  void op(OpKind kind, std::vector<int32_t> inputs, std::vector<int32_t> outputs, OpParams params = NoParams{}) {
    Op o;
    o.builtin_code = static_cast<int32_t>(kind);
    o.inputs = std::move(inputs);
    o.outputs = std::move(outputs);
    o.params = std::move(params);
    ops.push_back(std::move(o));
  }

  // The CONCATENATION of a stage's tiles.
  void concatenation(std::vector<int32_t> tiles, int32_t output, const ConcatenationParams& params) {
    tile_concatenations_.push_back(static_cast<int32_t>(ops.size()));
    op(OpKind::kConcatenation, std::move(tiles), {output}, params);
  }
  // Their indices in `ops`, in op order.
  const std::vector<int32_t>& tile_concatenations() const { return tile_concatenations_; }

  int32_t rows(int32_t tensor) const { return sg_.tensors[static_cast<size_t>(tensor)].shape[1]; }

  std::vector<Op> ops;

 private:
  int32_t push(Tensor t) {
    sg_.tensors.push_back(std::move(t));
    return static_cast<int32_t>(sg_.tensors.size()) - 1;
  }

  Subgraph& sg_;
  std::string source_;
  std::vector<int32_t> tile_concatenations_;
  int32_t next_buffer_ = 1;
};

// `params` with VALID padding where it has a padding field.
OpParams with_valid_padding(OpParams params) {
  std::visit(
      [](auto& p) {
        if constexpr (requires { p.padding; }) p.padding = Padding::kValid;
      },
      params);
  return params;
}

// `sg` without those of `candidates` that no op, input or output refers
// to, every tensor index renumbered.
void drop_unused_tensors(Subgraph& sg, const std::vector<int32_t>& candidates) {
  std::vector<bool> used(sg.tensors.size(), false);
  auto mark = [&](const std::vector<int32_t>& tensors) {
    for (int32_t t : tensors) {
      if (t >= 0) used[static_cast<size_t>(t)] = true;
    }
  };
  for (const Op& op : sg.ops) {
    mark(op.inputs);
    mark(op.outputs);
  }
  mark(sg.inputs);
  mark(sg.outputs);
  std::vector<bool> drop(sg.tensors.size(), false);
  for (int32_t t : candidates) {
    if (t >= 0 && !used[static_cast<size_t>(t)]) drop[static_cast<size_t>(t)] = true;
  }
  std::vector<int32_t> renumbered(sg.tensors.size(), kNoTensor);
  std::vector<Tensor> kept;
  for (size_t t = 0; t < sg.tensors.size(); ++t) {
    if (drop[t]) continue;
    renumbered[t] = static_cast<int32_t>(kept.size());
    kept.push_back(std::move(sg.tensors[t]));
  }
  sg.tensors = std::move(kept);
  auto renumber = [&](std::vector<int32_t>& tensors) {
    for (int32_t& t : tensors) {
      if (t >= 0) t = renumbered[static_cast<size_t>(t)];
    }
  };
  for (Op& op : sg.ops) {
    renumber(op.inputs);
    renumber(op.outputs);
  }
  renumber(sg.inputs);
  renumber(sg.outputs);
}

void tile_one_stage(const Graph& graph, const SplitStage& stage, Tiler& tiler) {
  const Subgraph& sg = graph.main();
  const std::string name = fmt::format("stage {}-{}", stage.first_op, stage.last_op);
  if (stage.column_tiles > 1) {
    throw Error(fmt::format("{}: --split {}: column tiles cannot be exported (TFLM's tensors are dense, their "
                            "patches would need copies); give {}-{}:{}",
                            graph.source, split_spec(stage), stage.first_op, stage.last_op, stage.tiles));
  }
  if (stage.tiles > kTflmMaxConcatenationInputs) {
    throw Error(fmt::format("{}: --split {}: {} tiles cannot be exported (TFLM's CONCATENATION takes at most {} "
                            "inputs); give at most {}",
                            graph.source, split_spec(stage), stage.tiles, kTflmMaxConcatenationInputs,
                            kTflmMaxConcatenationInputs));
  }
  const StageTiling tiling = tile_stage(graph, stage);
  const Op& first = sg.ops[static_cast<size_t>(stage.first_op)];
  const int32_t stage_input = first.inputs[0];
  const Tensor& input = sg.tensors[static_cast<size_t>(stage_input)];
  const AxisWindow first_rows = *row_window(sg, stage.first_op);
  std::vector<int32_t> tile_outputs;
  for (size_t t = 0; t < tiling.rows.size(); ++t) {
    const std::string tile = fmt::format("{} tile {}", name, t);
    // The stage input's rows this tile reads.
    const IndexRange read = input_range(first_rows, tiling.rows[t][0]);
    const int32_t slice = tiler.band(stage_input, read.size(), 0, tile + " input");
    const int32_t begin = tiler.int32_constant(tile + " begin", {4}, {0, read.begin, 0, 0});
    const int32_t end = tiler.int32_constant(tile + " end", {4},
                                             {input.shape[0], read.end, input.shape[2], input.shape[3]});
    const int32_t strides = tiler.int32_constant(tile + " strides", {4}, {1, 1, 1, 1});
    tiler.op(OpKind::kStridedSlice, {stage_input, begin, end, strides}, {slice}, StridedSliceParams{});
    int32_t current = slice;
    for (int32_t k = 0; k < tiling.op_count(); ++k) {
      const int32_t index = stage.first_op + k;
      const Op& op = sg.ops[static_cast<size_t>(index)];
      const std::string at = fmt::format("{} op {}", tile, index);
      const IndexRange rows = tiling.rows[t][static_cast<size_t>(k)];
      const AxisWindow rw = *row_window(sg, index);
      const AxisWindow cw = *column_window(sg, index);
      if (k > 0) {
        const IndexRange reads = input_range(rw, rows);
        const IndexRange given = tiling.rows[t][static_cast<size_t>(k - 1)];
        if (reads.begin != given.begin || reads.end != given.end) {
          throw Error(fmt::format("{}: {}: internal error: op {} reads rows [{}, {}) of a band [{}, {})",
                                  graph.source, name, index, reads.begin, reads.end, given.begin, given.end));
        }
      }
      const BandPadding pad_rows = band_padding(rw, rows);
      const BandPadding pad_cols = band_padding(cw, IndexRange{0, cw.output_extent});
      if (pad_rows.before + pad_rows.after + pad_cols.before + pad_cols.after > 0) {
        if (op.is(OpKind::kAveragePool2D)) {
          throw Error(fmt::format("{}: {}: op {} (AVERAGE_POOL_2D) reaches its padding in tile {}, and TFLM "
                                  "divides by the taps inside the input, which a padded band cannot reproduce",
                                  graph.source, name, index, t));
        }
        const Tensor& band_in = sg.tensors[static_cast<size_t>(op.inputs[0])];
        const int32_t padded = tiler.band(op.inputs[0], tiler.rows(current) + pad_rows.before + pad_rows.after,
                                          pad_cols.before + pad_cols.after, at + " padded");
        const int32_t paddings = tiler.int32_constant(
            at + " paddings", {4, 2},
            {0, 0, pad_rows.before, pad_rows.after, pad_cols.before, pad_cols.after, 0, 0});
        if (op.is(OpKind::kMaxPool2D)) {
          const int32_t lowest = tiler.lowest_constant(at + " pad value", band_in.type, band_in.quantization);
          tiler.op(OpKind::kPadV2, {current, paddings, lowest}, {padded});
        } else {
          tiler.op(OpKind::kPad, {current, paddings}, {padded});
        }
        current = padded;
      }
      const int32_t out = tiler.band(op.outputs[0], rows.size(), 0, at + " output");
      std::vector<int32_t> inputs = op.inputs;
      inputs[0] = current;
      tiler.op(static_cast<OpKind>(op.builtin_code), inputs, {out}, with_valid_padding(op.params));
      current = out;
    }
    tile_outputs.push_back(current);
  }
  ConcatenationParams along_height;
  along_height.axis = 1;
  tiler.concatenation(tile_outputs, tiling.outputs.back(), along_height);
}

}  // namespace

Graph tiled_stages(const Graph& graph, std::vector<SplitStage> stages, std::vector<int32_t>* concatenations) {
  std::sort(stages.begin(), stages.end(),
            [](const SplitStage& a, const SplitStage& b) { return a.first_op < b.first_op; });
  Graph out = graph;
  Subgraph& sg = out.subgraphs[0];
  Tiler tiler(graph, sg);
  int32_t next = 0;
  for (const SplitStage& stage : stages) {
    if (stage.first_op < next) {
      throw Error(fmt::format("{}: split stages {}-{} and an earlier one share ops", graph.source, stage.first_op,
                              stage.last_op));
    }
    for (; next < stage.first_op; ++next) tiler.ops.push_back(graph.main().ops[static_cast<size_t>(next)]);
    tile_one_stage(graph, stage, tiler);
    next = stage.last_op + 1;
  }
  for (; static_cast<size_t>(next) < graph.main().ops.size(); ++next) {
    tiler.ops.push_back(graph.main().ops[static_cast<size_t>(next)]);
  }
  sg.ops = std::move(tiler.ops);
  // TFLM gives every tensor of the list a buffer, one no op uses included
  // (all such buffers live at the same time, so they stack up): the
  // intermediates the tiles replace go.
  std::vector<int32_t> replaced;
  for (const SplitStage& stage : stages) {
    for (int32_t op = stage.first_op; op < stage.last_op; ++op) {
      for (int32_t t : graph.main().ops[static_cast<size_t>(op)].outputs) replaced.push_back(t);
    }
  }
  drop_unused_tensors(sg, replaced);
  // Tensor indices moved: the file's offline plan no longer fits.
  out.offline_plan.reset();
  if (concatenations) *concatenations = tiler.tile_concatenations();  // dropping tensors moves no op
  return out;
}

}  // namespace dmo

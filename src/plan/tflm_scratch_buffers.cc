#include "dmo/plan/tflm_scratch_buffers.h"

#include <flatbuffers/flexbuffers.h>
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <utility>

#include "dmo/error.h"
#include "dmo/plan/tflm_greedy_planner.h"

namespace dmo {

namespace {

// Builtin codes of TFLM kernels that request scratch buffers and that dmo
// has no kernel (and so no OpKind) for.
constexpr int32_t kReduceMax = 82;
constexpr int32_t kReduceMin = 89;
constexpr int32_t kReduceAll = 140;

// An op's operands as TFLM's Prepare sees them.
class OpOperands {
 public:
  OpOperands(const Subgraph& subgraph, int32_t op, const std::string& source)
      : subgraph_(subgraph), op_(subgraph.ops[static_cast<size_t>(op)]), index_(op), source_(source) {}

  const Op& op() const { return op_; }
  const Tensor& input(size_t i) const { return tensor(op_.inputs, i, "input"); }
  const Tensor& output(size_t i) const { return tensor(op_.outputs, i, "output"); }
  int64_t dim(const Tensor& t, size_t d, const char* what) const {
    if (d >= t.shape.size()) fail(fmt::format("{} '{}' has no dimension {}", what, t.name, d));
    return t.shape[d];
  }
  [[noreturn]] void fail(const std::string& problem) const {
    throw Error(fmt::format("{}: op {} ({}): {}, so TFLM's kernel cannot prepare it", source_, index_, op_.name(),
                            problem));
  }

 private:
  const Tensor& tensor(const std::vector<int32_t>& list, size_t i, const char* what) const {
    if (i >= list.size() || list[i] < 0 || static_cast<size_t>(list[i]) >= subgraph_.tensors.size()) {
      fail(fmt::format("{} {} is missing", what, i));
    }
    return subgraph_.tensors[static_cast<size_t>(list[i])];
  }

  const Subgraph& subgraph_;
  const Op& op_;
  int32_t index_;
  const std::string& source_;
};

// PrepareMeanOrSumHelper asks for an accumulator for these input types only.
bool is_integer_reduction_input(DataType type) { return type == DataType::kInt8 || type == DataType::kInt16; }

// Conv, depthwise conv and fully connected unpack INT4 filters into an int8
// copy the size of the filter's element count (conv_common.cc,
// depthwise_conv_common.cc, fully_connected_common.cc).
void int4_filter(const OpOperands& o, const char* kernel, std::vector<ScratchBuffer>& out, int32_t op) {
  const Tensor& filter = o.input(1);
  if (filter.type != DataType::kInt4) return;
  out.push_back({op, filter.element_count, fmt::format("{} int4 filter ({})", o.op().name(), kernel),
                 "filter unpacked to int8"});
}

// An integer custom option TFLM's Init reads with AsInt32 (checked here,
// since the buffer sizes follow it).
int64_t custom_integer(const OpOperands& o, const char* key) {
  const std::vector<uint8_t>& bytes = o.op().custom_options;
  if (bytes.empty() || !flexbuffers::VerifyBuffer(bytes.data(), bytes.size())) {
    o.fail("its custom options are missing or not a valid FlexBuffer");
  }
  const flexbuffers::Reference root = flexbuffers::GetRoot(bytes.data(), bytes.size());
  const flexbuffers::Reference value = root.IsMap() ? root.AsMap()[key] : flexbuffers::Reference();
  if (!value.IsIntOrUint() || value.AsInt64() < 0 || value.AsInt64() > std::numeric_limits<int32_t>::max()) {
    o.fail(fmt::format("its custom option '{}' is missing or not an int32 of at least 0", key));
  }
  return value.AsInt64();
}

// Prepare (detection_postprocess.cc): eleven buffers, in its order, sized
// by the anchors, the classes and max_detections.
void detection_postprocess(const OpOperands& o, std::vector<ScratchBuffer>& out, int32_t op) {
  const int64_t boxes = o.dim(o.input(0), 1, "box encodings");
  const int64_t predictions = o.dim(o.input(1), 1, "class predictions") * o.dim(o.input(1), 2, "class predictions");
  const int64_t most = custom_integer(o, "max_detections");
  const int64_t classes = custom_integer(o, "num_classes");
  const std::string kernel = "TFLite_Detection_PostProcess (detection_postprocess.cc)";
  const std::pair<int64_t, const char*> buffers[] = {
      {boxes, "active candidate flag per anchor"},
      {boxes * 4 * 4, "decoded box per anchor"},
      {predictions * 4, "float per class prediction"},
      {boxes * 4, "score per anchor"},
      {boxes * 4, "kept score per anchor"},
      {most * boxes * 4, "scores after regular suppression"},
      {most * boxes * 4, "sorted values"},
      {boxes * 4, "kept index per anchor"},
      {most * boxes * 4, "sorted indices"},
      {std::max(classes, most) * boxes * 4, "class ranking or selected score indices"},
      {std::min(boxes, most) * boxes * 4, "selected anchors"},
  };
  for (const auto& [bytes, what] : buffers) out.push_back({op, bytes, kernel, what});
}

}  // namespace

std::vector<ScratchBuffer> tflm_scratch_buffers(const Subgraph& subgraph, int32_t op, const std::string& source) {
  const OpOperands o(subgraph, op, source);
  const Op& node = o.op();
  std::vector<ScratchBuffer> out;
  if (node.is(OpKind::kConv2D)) {
    int4_filter(o, "conv_common.cc", out, op);
  } else if (node.is(OpKind::kDepthwiseConv2D)) {
    int4_filter(o, "depthwise_conv_common.cc", out, op);
  } else if (node.is(OpKind::kFullyConnected)) {
    int4_filter(o, "fully_connected_common.cc", out, op);
  } else if (node.is(OpKind::kMean) || node.is(OpKind::kSum)) {
    // PrepareMeanOrSumHelper (reduce_common.cc): int8 and int16 inputs sum
    // into an int32 per output element; every type then asks for an int
    // per input dimension (the index walk) and per axis element.
    const Tensor& input = o.input(0);
    const Tensor& axis = o.input(1);
    const std::string kernel = fmt::format("{} {} (reduce_common.cc)", node.name(), data_type_name(input.type));
    if (is_integer_reduction_input(input.type)) {
      out.push_back({op, o.output(0).element_count * 4, kernel, "int32 temp sum per output element"});
    }
    out.push_back({op, static_cast<int64_t>(input.shape.size()) * 4, kernel, "temp index per input dimension"});
    out.push_back({op, axis.element_count * 4, kernel, "resolved axis"});
  } else if (node.builtin_code == kReduceMax || node.builtin_code == kReduceMin || node.builtin_code == kReduceAll) {
    // PrepareMinMaxHelper and PrepareAllHelper (reduce_common.cc): an int
    // per input dimension and per axis element.
    const Tensor& input = o.input(0);
    const Tensor& axis = o.input(1);
    const std::string kernel = fmt::format("{} (reduce_common.cc)", node.name());
    out.push_back({op, static_cast<int64_t>(input.shape.size()) * 4, kernel, "temp index per input dimension"});
    out.push_back({op, axis.element_count * 4, kernel, "resolved axis"});
  } else if (node.is(OpKind::kSvdf)) {
    // PrepareSvdf (svdf_common.cc): int8 takes an int32 per filter and per
    // unit and batch; every other input type takes the float path.
    const auto* params = std::get_if<SvdfParams>(&node.params);
    if (!params || params->rank <= 0) o.fail("its rank is missing or not positive");
    const Tensor& input = o.input(0);
    const int64_t batch = o.dim(input, 0, "input");
    const int64_t filters = o.dim(o.input(1), 0, "weights_feature");
    if (filters % params->rank != 0) o.fail(fmt::format("{} filters are not a multiple of rank {}", filters, params->rank));
    if (input.type == DataType::kInt8) {
      out.push_back({op, batch * filters * 4, "SVDF int8 (svdf_common.cc)", "int32 per batch and filter"});
      out.push_back({op, batch * (filters / params->rank) * 4, "SVDF int8 (svdf_common.cc)",
                     "int32 output per batch and unit"});
    } else {
      out.push_back({op, batch * filters * 4, "SVDF float (svdf_common.cc)", "float per batch and filter"});
    }
  } else if (node.is(OpKind::kTransposeConv)) {
    // Prepare (transpose_conv.cc): int8 accumulates in an int32 per output
    // element, 16x8 in an int64, and widens an INT16 bias to int64 first.
    const Tensor& input = o.input(2);
    const int64_t outputs = o.output(0).element_count;
    if (input.type == DataType::kInt8) {
      out.push_back({op, outputs * 4, "TRANSPOSE_CONV int8 (transpose_conv.cc)", "int32 accumulator per output element"});
    } else if (input.type == DataType::kInt16) {
      out.push_back({op, outputs * 8, "TRANSPOSE_CONV 16x8 (transpose_conv.cc)", "int64 accumulator per output element"});
      if (node.inputs.size() > 3 && node.inputs[3] >= 0 && o.input(3).type == DataType::kInt16) {
        out.push_back({op, o.input(3).element_count * 8, "TRANSPOSE_CONV 16x8 (transpose_conv.cc)",
                       "INT16 bias widened to int64"});
      }
    }
  } else if (node.is(OpKind::kUnidirectionalSequenceLstm)) {
    // UnidirectionalSequenceLstmPrepare: four buffers of batch x state
    // elements of the cell state's type; batch x state is the element count
    // of the hidden (output) state, input 18, whose size TFLM checks.
    const Tensor& hidden = o.input(18);
    const Tensor& cell = o.input(19);
    int64_t element = 0;
    if (cell.type == DataType::kFloat32) element = 4;
    if (cell.type == DataType::kInt16) element = 2;
    if (element == 0) o.fail(fmt::format("its cell state is {}, not FLOAT32 or INT16", data_type_name(cell.type)));
    const std::string kernel =
        fmt::format("UNIDIRECTIONAL_SEQUENCE_LSTM {} cell state (unidirectional_sequence_lstm.cc)",
                    data_type_name(cell.type));
    for (int i = 0; i < 4; ++i) {
      out.push_back({op, hidden.element_count * element, kernel, fmt::format("gate buffer {}", i)});
    }
  } else if (node.is(OpKind::kCustom) && node.custom_code == "SignalRfft") {
    // RfftPrepare (signal/micro/kernels/rfft.cc): fft_length elements of the
    // input type (INT16, INT32 or FLOAT32) to zero-pad each frame into. The output holds
    // fft_length / 2 + 1 complex values, so fft_length = its last dimension - 2.
    const Tensor& input = o.input(0);
    const Tensor& output = o.output(0);
    if (output.shape.empty()) o.fail("output 0 has no dimensions");
    const int64_t fft_length = output.shape.back() - 2;
    const std::optional<int> element = element_size(input.type);
    if (fft_length <= 0 || !element) o.fail("its output's last dimension gives no FFT length");
    out.push_back({op, fft_length * *element, fmt::format("SignalRfft {} (rfft.cc)", data_type_name(input.type)),
                   "zero-padded frame"});
  } else if (node.is(OpKind::kCustom) && node.custom_code == "TFLite_Detection_PostProcess") {
    detection_postprocess(o, out, op);
  } else if (node.is(OpKind::kCustom) && node.custom_code == "ethos-u") {
    // Prepare (kernels/ethos_u/ethosu.cc): a base address (uint64) and a size
    // (size_t, 4 bytes on the Cortex-M hosts of the NPU) per input and output.
    const auto addresses = static_cast<int64_t>(node.inputs.size() + node.outputs.size());
    out.push_back({op, addresses * 8, "ethos-u (ethosu.cc)", "base addresses"});
    out.push_back({op, addresses * 4, "ethos-u (ethosu.cc)", "base address sizes"});
  }
  return out;
}

std::vector<ScratchBuffer> tflm_scratch_buffers(const Subgraph& subgraph, const std::string& source) {
  std::vector<ScratchBuffer> all;
  for (size_t op = 0; op < subgraph.ops.size(); ++op) {
    std::vector<ScratchBuffer> some = tflm_scratch_buffers(subgraph, static_cast<int32_t>(op), source);
    all.insert(all.end(), some.begin(), some.end());
  }
  return all;
}

void add_scratch_buffers(MemoryProblem& problem, const std::vector<ScratchBuffer>& scratch,
                         const std::vector<int32_t>& step_of_op) {
  for (const ScratchBuffer& s : scratch) {
    const int32_t step = step_of_op[static_cast<size_t>(s.op)];
    BufferRequest buffer;
    buffer.tensor = kNoTensor;
    buffer.size = s.bytes;
    buffer.lifetime = {step, step};
    buffer.alignment = kTflmBufferAlignment;
    problem.buffers.push_back(buffer);
  }
}

}  // namespace dmo

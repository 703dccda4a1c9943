// What each of TFLM's kernels takes from the arena's tail on a 32-bit Arm
// target, op by op, at the TFLM commit dmo mirrors: the TfLite*Params its
// options are parsed into (flatbuffer_conversions.cc Parse*, aligned to
// the struct), the OpData its Init allocates and what its Prepare adds
// (per-channel multipliers and shifts, LUTs, writable dims), each at the
// arena alignment of 16. The cmsis families differ from the reference only
// in their OpData sizes and in which types get per-channel tables; on a
// core without MVE neither CMSIS-NN build allocates kernel sums.
#include <optional>
#include <string>

#include "dmo/model/op_kind.h"
#include "dmo/plan/tflm_tail.h"

namespace dmo {

namespace {

constexpr int64_t kOpDataAlignment = 16;  // MicroArenaBufferAlignment()

PersistentRequest op_data(int64_t bytes) { return {bytes, kOpDataAlignment}; }

// TfLiteIntArrayGetSizeInBytes(rank): CreateWritableTensorDimsWithCopy.
PersistentRequest writable_dims(const Tensor& tensor) {
  return op_data(4 + 4 * static_cast<int64_t>(tensor.shape.size()));
}

// Per-channel output multipliers and shifts, int32 each.
void add_channel_tables(std::vector<PersistentRequest>& to, int64_t channels) {
  to.push_back(op_data(4 * channels));
  to.push_back(op_data(4 * channels));
}

bool is_integer_activation(DataType type) { return type == DataType::kInt8 || type == DataType::kInt16; }

int64_t type_bytes(DataType type) {
  switch (type) {
    case DataType::kInt8: case DataType::kUInt8: case DataType::kBool: return 1;
    case DataType::kInt16: case DataType::kFloat16: return 2;
    case DataType::kInt64: case DataType::kFloat64: return 8;
    default: return 4;
  }
}

// The builtin params struct each op's Parse allocates: sizeof and alignof
// on the target. Ops whose Parse allocates nothing have none.
std::optional<PersistentRequest> parsed_params(OpKind kind) {
  switch (kind) {
    case OpKind::kAdd: case OpKind::kSub: case OpKind::kCast: case OpKind::kResizeBilinear:
    case OpKind::kResizeNearestNeighbor: return PersistentRequest{2, 1};
    case OpKind::kMul: case OpKind::kDiv: case OpKind::kMean: case OpKind::kSum: case OpKind::kShape:
    case OpKind::kArgMax: case OpKind::kArgMin: case OpKind::kL2Normalization: return PersistentRequest{1, 1};
    case OpKind::kBatchMatMul: return PersistentRequest{3, 1};
    case OpKind::kFullyConnected: return PersistentRequest{5, 1};
    case OpKind::kSoftmax: case OpKind::kLeakyRelu: case OpKind::kSplit: case OpKind::kCallOnce:
      return PersistentRequest{4, 4};
    case OpKind::kConcatenation: case OpKind::kWhile: case OpKind::kIf: case OpKind::kPack: case OpKind::kUnpack:
    case OpKind::kGather: case OpKind::kSvdf: case OpKind::kVarHandle: return PersistentRequest{8, 4};
    case OpKind::kUnidirectionalSequenceLstm: case OpKind::kTransposeConv: return PersistentRequest{16, 4};
    case OpKind::kStridedSlice: return PersistentRequest{24, 4};
    case OpKind::kConv2D: case OpKind::kDepthwiseConv2D: return PersistentRequest{28, 4};
    case OpKind::kReshape: case OpKind::kSqueeze: return PersistentRequest{36, 4};
    case OpKind::kAveragePool2D: case OpKind::kMaxPool2D: return PersistentRequest{40, 4};
    default: return std::nullopt;
  }
}

// Ops whose reference kernel allocates nothing in Init or Prepare (some
// have no Init at all, some only check shapes in Prepare).
bool keeps_no_op_data(OpKind kind) {
  switch (kind) {
    case OpKind::kSplit: case OpKind::kResizeBilinear: case OpKind::kResizeNearestNeighbor:
    case OpKind::kUnpack: case OpKind::kPack: case OpKind::kTranspose: case OpKind::kSqueeze:
    case OpKind::kSqrt: case OpKind::kLog: case OpKind::kReverseV2: case OpKind::kMinimum: case OpKind::kMaximum:
    case OpKind::kExpandDims: case OpKind::kExp: case OpKind::kCast: case OpKind::kShape: case OpKind::kArgMax:
    case OpKind::kArgMin: case OpKind::kBatchToSpaceNd: case OpKind::kSlice: case OpKind::kReadVariable:
    case OpKind::kFloorDiv: case OpKind::kFloorMod:
      return true;
    default: return false;
  }
}

// The OpData one Init allocates, for kernels whose Prepare adds nothing
// or only what `kernel_prepare` below adds.
std::optional<int64_t> init_op_data(OpKind kind, bool cmsis) {
  switch (kind) {
    case OpKind::kAdd: return 60;
    case OpKind::kFullyConnected: return cmsis ? 72 : 48;
    case OpKind::kSoftmax: return cmsis ? 64 : 56;
    case OpKind::kConv2D: case OpKind::kDepthwiseConv2D: return cmsis ? 60 : 56;
    case OpKind::kAveragePool2D: case OpKind::kMaxPool2D: return cmsis ? 36 : 32;
    case OpKind::kMul: return 36;
    case OpKind::kConcatenation: return 24;
    case OpKind::kPad: case OpKind::kPadV2: return 56;
    case OpKind::kWhile: case OpKind::kIf: case OpKind::kCallOnce: return 8;
    case OpKind::kTanh: case OpKind::kLogistic: return 16;
    case OpKind::kStridedSlice: return 84;
    case OpKind::kQuantize: case OpKind::kDequantize: return 32;
    case OpKind::kMean: case OpKind::kSum: return 44;
    case OpKind::kLeakyRelu: return 24;
    case OpKind::kDiv: return 28;
    case OpKind::kUnidirectionalSequenceLstm: return cmsis ? 912 : 688;
    case OpKind::kTransposeConv: return cmsis ? 76 : 72;
    case OpKind::kSvdf: return cmsis ? 40 : 36;
    case OpKind::kSub: return 52;
    case OpKind::kSquaredDifference: return 112;
    case OpKind::kRsqrt: return 28;
    case OpKind::kRelu: return 28;
    case OpKind::kRelu6: return 8;
    case OpKind::kPrelu: return 28;
    case OpKind::kLess: case OpKind::kLessEqual: case OpKind::kGreater: case OpKind::kGreaterEqual:
    case OpKind::kEqual: case OpKind::kNotEqual: return 32;
    case OpKind::kBatchMatMul: return cmsis ? 36 : 16;
    case OpKind::kHardSwish: return 20;
    case OpKind::kL2Normalization: return 4;
    case OpKind::kSelectV2: return 1;
    case OpKind::kSpaceToBatchNd: return 4;
    case OpKind::kVarHandle: return 4;
    default: return std::nullopt;
  }
}

// A weight tensor quantized per channel (more than one scale).
bool per_channel(const Tensor& weights) { return weights.quantization.scale.size() > 1; }

// The eval tensor TFLM copies an operand into for BATCH_MATMUL's transposes.
void add_transposed_copy(std::vector<PersistentRequest>& to, const Tensor& operand) {
  to.push_back(op_data(12));  // TfLiteEvalTensor
  to.push_back(writable_dims(operand));
  to.push_back(op_data(operand.element_count * type_bytes(operand.type)));
}

// UNIDIRECTIONAL_SEQUENCE_LSTM's gates (lstm_eval_common.cc
// CreateGateParams): forget, input, cell, output, each an input and a
// recurrent fully connected, per-channel tables when the weights have them.
void add_lstm_gate_tables(std::vector<PersistentRequest>& to, const Subgraph& sg, const Op& op) {
  // TFLite's LSTM operand order: input weights 1-4 (input, forget, cell,
  // output), recurrent weights 5-8.
  constexpr int kInputWeights[] = {2, 1, 3, 4};
  constexpr int kRecurrentWeights[] = {6, 5, 7, 8};
  for (int gate = 0; gate < 4; ++gate) {
    for (int k : {kInputWeights[gate], kRecurrentWeights[gate]}) {
      if (static_cast<size_t>(k) >= op.inputs.size() || op.inputs[static_cast<size_t>(k)] == kNoTensor) continue;
      const Tensor& w = sg.tensors[static_cast<size_t>(op.inputs[static_cast<size_t>(k)])];
      if (per_channel(w)) add_channel_tables(to, static_cast<int64_t>(w.quantization.scale.size()));
    }
  }
}

// KISS FFT's kiss_fftr state for a real transform of `fft_length`
// (kiss_fftr_alloc): the kiss_fftr_state (three pointers), the half-size
// complex transform's kiss_fft_state (nfft, inverse, 64 factors, then
// nfft twiddles) and 3/2 * nfft more complex values, `complex_bytes` each.
int64_t kiss_fftr_state_bytes(int64_t fft_length, int64_t complex_bytes) {
  const int64_t n = fft_length / 2;
  const int64_t fft_state = 4 + 4 + 4 * 64 + complex_bytes * n;
  return 12 + fft_state + complex_bytes * (n * 3 / 2);
}

// TFLM's signal library ops (custom ops, signal/micro/kernels): only Init
// allocates, its params struct and for some a table sized by the shapes.
std::optional<OpPersistent> signal_op_persistent(const Subgraph& sg, const Op& op) {
  auto shape_back = [&](const std::vector<int32_t>& tensors) -> int64_t {
    if (tensors.empty() || tensors[0] == kNoTensor) return 0;
    const Tensor& t = sg.tensors[static_cast<size_t>(tensors[0])];
    return t.shape.empty() ? 1 : t.shape.back();
  };
  auto complex_bytes = [&](const std::vector<int32_t>& tensors) -> int64_t {
    if (tensors.empty() || tensors[0] == kNoTensor) return 0;
    return sg.tensors[static_cast<size_t>(tensors[0])].type == DataType::kInt16 ? 4 : 8;
  };
  OpPersistent p;
  const std::string& name = op.custom_code;
  if (name == "SignalFftAutoScale" || name == "SignalFilterBankSquareRoot") return p;
  if (name == "SignalWindow" || name == "SignalEnergy" || name == "SignalFilterBankLog") {
    p.init.push_back(op_data(8));
  } else if (name == "SignalPCAN") {
    p.init.push_back(op_data(4));
  } else if (name == "SignalFilterBank") {  // weights' channel ranges: num_channels + 1
    p.init.push_back(op_data(36));
    p.init.push_back(op_data(8 * (shape_back(op.outputs) + 1)));
  } else if (name == "SignalFilterBankSpectralSubtraction") {  // noise estimate per channel
    p.init.push_back(op_data(44));
    p.init.push_back(op_data(4 * shape_back(op.inputs)));
  } else if (name == "SignalRfft") {  // output: fft_length / 2 + 1 complex values
    p.init.push_back(op_data(32));
    p.init.push_back(op_data(kiss_fftr_state_bytes(shape_back(op.outputs) - 2, complex_bytes(op.inputs))));
  } else if (name == "SignalIrfft") {  // input: fft_length / 2 + 1 complex values
    p.init.push_back(op_data(24));
    p.init.push_back(op_data(kiss_fftr_state_bytes(shape_back(op.inputs) - 2, complex_bytes(op.outputs))));
  } else {
    return std::nullopt;  // delay lines, framers, stackers: sized by their options
  }
  return p;
}

}  // namespace

std::optional<OpPersistent> tflm_op_persistent(const Subgraph& sg, int32_t index, TailKernels kernels) {
  const Op& op = sg.ops[static_cast<size_t>(index)];
  const auto kind = static_cast<OpKind>(op.builtin_code);
  if (op.is(OpKind::kCustom)) return signal_op_persistent(sg, op);
  const bool cmsis = kernels == TailKernels::kCmsisNn;
  auto tensor = [&](size_t k) -> const Tensor* {
    if (k >= op.inputs.size() || op.inputs[k] == kNoTensor) return nullptr;
    return &sg.tensors[static_cast<size_t>(op.inputs[k])];
  };
  auto output = [&](size_t k) -> const Tensor* {
    if (k >= op.outputs.size() || op.outputs[k] == kNoTensor) return nullptr;
    return &sg.tensors[static_cast<size_t>(op.outputs[k])];
  };
  const Tensor* in = tensor(0);

  OpPersistent p;
  if (std::optional<PersistentRequest> params = parsed_params(kind)) p.params.push_back(*params);
  if (keeps_no_op_data(kind)) return p;
  switch (kind) {
    case OpKind::kReshape: {
      // Writable output dims only for a shape left to be inferred (-1).
      const Tensor* out = output(0);
      if (out) {
        for (int32_t d : out->shape) {
          if (d < 0) {
            p.prepare.push_back(writable_dims(*out));
            break;
          }
        }
      }
      return p;
    }
    case OpKind::kGather: case OpKind::kGatherNd:
      if (const Tensor* out = output(0)) p.prepare.push_back(writable_dims(*out));
      return p;
    case OpKind::kAssignVariable:
      // MicroResourceVariables::Allocate happens only after a VAR_HANDLE
      // of the same subgraph: not modelled.
      return std::nullopt;
    default: break;
  }
  const std::optional<int64_t> init = init_op_data(kind, cmsis);
  if (!init) return std::nullopt;
  p.init.push_back(op_data(*init));
  const Tensor* weights = tensor(1);
  switch (kind) {
    case OpKind::kConv2D: case OpKind::kTransposeConv: {
      // TRANSPOSE_CONV's filter is input 1 too; the reference kernels build
      // the tables for every type, CMSIS-NN's conv for integer inputs only.
      if (!weights || weights->shape.empty()) return std::nullopt;
      const bool tables = !cmsis || kind == OpKind::kTransposeConv || (in && is_integer_activation(in->type));
      if (tables) add_channel_tables(p.prepare, weights->shape.front());
      break;
    }
    case OpKind::kDepthwiseConv2D: {
      if (!weights || weights->shape.size() < 4) return std::nullopt;
      if (!cmsis || (in && is_integer_activation(in->type))) add_channel_tables(p.prepare, weights->shape[3]);
      break;
    }
    case OpKind::kFullyConnected:
      if (weights && in && in->type != DataType::kFloat32 && per_channel(*weights)) {
        add_channel_tables(p.prepare, static_cast<int64_t>(weights->quantization.scale.size()));
      }
      break;
    case OpKind::kSoftmax:
      if (in && in->type == DataType::kInt16) {  // exp and 1/(1+x) LUTs, 513 int16 each
        p.prepare.push_back(op_data(1026));
        p.prepare.push_back(op_data(1026));
      }
      break;
    case OpKind::kUnidirectionalSequenceLstm: {
      add_lstm_gate_tables(p.prepare, sg, op);
      // CMSIS-NN's kernel sums: data then hidden, per gate, for integer
      // inputs with an int16 cell state (input 19, the cell state).
      const Tensor* cell = tensor(19);
      const Tensor* state = tensor(18);
      if (cmsis && in && cell && state && state->shape.size() >= 2 && is_integer_activation(in->type) &&
          cell->type == DataType::kInt16) {
        const int64_t n_cell = state->shape[1];
        for (int i = 0; i < 8; ++i) p.prepare.push_back(op_data((in->type == DataType::kInt8 ? 4 : 8) * n_cell));
      }
      break;
    }
    case OpKind::kBatchMatMul: {
      const Tensor* lhs = tensor(0);
      const Tensor* rhs = tensor(1);
      const Tensor* out = output(0);
      if (!lhs || !rhs || !out) return std::nullopt;
      const auto* params = std::get_if<BatchMatMulParams>(&op.params);
      const bool adj_x = params && params->adj_x;
      const bool adj_y = params && params->adj_y;
      const bool quantized = is_integer_activation(lhs->type);
      if (!cmsis && quantized) p.prepare.push_back(op_data(28));
      if (adj_x) add_transposed_copy(p.prepare, *lhs);
      if (!adj_y) add_transposed_copy(p.prepare, *rhs);
      p.prepare.push_back(writable_dims(*out));
      if (cmsis && lhs->type != DataType::kFloat32) p.prepare.push_back(op_data(28));
      break;
    }
    default: break;
  }
  return p;
}

}  // namespace dmo

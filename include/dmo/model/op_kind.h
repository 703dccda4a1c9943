// Operator kinds: TFLite builtin operator codes.
#pragma once

#include <cstdint>
#include <string>

namespace dmo {

// Builtin codes dmo gives a meaning to; any other code is kept as an opaque
// op (inputs and outputs only) so planning still works.
enum class OpKind : int32_t {
  kAdd = 0,
  kAveragePool2D = 1,
  kConcatenation = 2,
  kConv2D = 3,
  kDepthwiseConv2D = 4,
  kDequantize = 6,
  kFullyConnected = 9,
  kLogistic = 14,
  kMaxPool2D = 17,
  kMul = 18,
  kRelu = 19,
  kReluN1To1 = 20,
  kRelu6 = 21,
  kReshape = 22,
  kSoftmax = 25,
  kSvdf = 27,
  kTanh = 28,
  kCustom = 32,
  kPad = 34,
  kGather = 36,
  kMean = 40,
  kSum = 74,
  kSub = 41,
  kSqueeze = 43,
  kUnidirectionalSequenceLstm = 44,
  kStridedSlice = 45,
  kSplit = 49,
  kPadV2 = 60,
  kQuantize = 114,
  kHardSwish = 117,
  // Element-wise math, CAST, arg min/max and SELECT_V2.
  kL2Normalization = 11,
  kDiv = 42,
  kExp = 47,
  kCast = 53,
  kPrelu = 54,
  kMaximum = 55,
  kArgMax = 56,
  kMinimum = 57,
  kLog = 73,
  kSqrt = 75,
  kRsqrt = 76,
  kPow = 78,
  kArgMin = 79,
  kFloorDiv = 90,
  kFloorMod = 95,
  kLeakyRelu = 98,
  kSquaredDifference = 99,
  kSelectV2 = 123,
  // Comparisons.
  kLess = 58,
  kGreater = 61,
  kGreaterEqual = 62,
  kLessEqual = 63,
  kEqual = 71,
  kNotEqual = 72,
  // Control flow: ops that call other subgraphs.
  kIf = 118,
  kWhile = 119,
  kCallOnce = 129,
  // Shape and gather ops.
  kBatchToSpaceNd = 37,
  kSpaceToBatchNd = 38,
  kTranspose = 39,
  kSlice = 65,
  kTile = 69,
  kExpandDims = 70,
  kShape = 77,
  kPack = 83,
  kUnpack = 88,
  kReverseV2 = 105,
  kGatherNd = 107,
  // Matrix and resampling ops.
  kResizeBilinear = 23,
  kTransposeConv = 67,
  kResizeNearestNeighbor = 97,
  kBatchMatMul = 126,
  // Resource variables: a handle by name, its value read and assigned.
  kVarHandle = 142,
  kReadVariable = 143,
  kAssignVariable = 144,
};

// The TFLite name of a builtin code ("CONV_2D"); "BUILTIN_<n>" when unknown.
std::string builtin_op_name(int32_t builtin_code);

}  // namespace dmo

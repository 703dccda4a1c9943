// Typed builtin parameters of the ops dmo understands.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "dmo/model/data_type.h"

namespace dmo {

enum class Padding : int8_t { kSame = 0, kValid = 1 };

enum class Activation : int8_t {
  kNone = 0,
  kRelu = 1,
  kReluN1To1 = 2,
  kRelu6 = 3,
  kTanh = 4,
  kSignBit = 5,
};

struct Conv2DParams {
  Padding padding = Padding::kSame;
  int32_t stride_w = 1, stride_h = 1;
  int32_t dilation_w = 1, dilation_h = 1;
  Activation activation = Activation::kNone;
  // The bias type a quantized op without a bias accumulates in (INT32, or
  // the schema's FLOAT32 for "not given": then an int16 op uses 64 bits).
  DataType quantized_bias_type = DataType::kFloat32;
};

struct DepthwiseConv2DParams {
  Padding padding = Padding::kSame;
  int32_t stride_w = 1, stride_h = 1;
  int32_t depth_multiplier = 1;
  int32_t dilation_w = 1, dilation_h = 1;
  Activation activation = Activation::kNone;
};

struct Pool2DParams {
  Padding padding = Padding::kSame;
  int32_t stride_w = 1, stride_h = 1;
  int32_t filter_w = 1, filter_h = 1;
  Activation activation = Activation::kNone;
};

struct FullyConnectedParams {
  Activation activation = Activation::kNone;
  int8_t weights_format = 0;  // 0 = DEFAULT; others are not supported by kernels
  bool keep_num_dims = false;
  bool asymmetric_quantize_inputs = false;
  DataType quantized_bias_type = DataType::kFloat32;  // as Conv2DParams'
};

struct SoftmaxParams {
  float beta = 1.0f;
};

struct ConcatenationParams {
  int32_t axis = 0;
  Activation activation = Activation::kNone;
};

// ADD, SUB and MUL share their parameters (DIV and L2_NORMALIZATION too:
// their options hold only the fused activation).
struct ElementwiseParams {
  Activation activation = Activation::kNone;
};

struct ReshapeParams {
  // Empty when the options are absent; input 1 then gives the shape.
  std::vector<int32_t> new_shape;
  bool has_new_shape = false;
};

struct SqueezeParams {
  std::vector<int32_t> squeeze_dims;
};

struct ReducerParams {
  bool keep_dims = false;
};

struct StridedSliceParams {
  int32_t begin_mask = 0, end_mask = 0, ellipsis_mask = 0;
  int32_t new_axis_mask = 0, shrink_axis_mask = 0;
  bool offset = false;
};

struct SplitParams {
  int32_t num_splits = 0;
};

struct SvdfParams {
  int32_t rank = 0;
  Activation activation = Activation::kNone;
  bool asymmetric_quantize_inputs = false;
};

// UNIDIRECTIONAL_SEQUENCE_LSTM; `activation` is the cell gate's.
struct UnidirectionalSequenceLstmParams {
  Activation activation = Activation::kNone;
  float cell_clip = 0.0f;  // 0: no clipping
  float proj_clip = 0.0f;
  bool time_major = false;
  bool asymmetric_quantize_inputs = false;
  bool diagonal_recurrent_tensors = false;
};

struct GatherParams {
  int32_t axis = 0;
  int32_t batch_dims = 0;
};

struct LeakyReluParams {
  float alpha = 0.0f;
};

// Control flow: the subgraphs an op calls (indices into Graph::subgraphs).
struct WhileParams {
  int32_t cond_subgraph = 0;
  int32_t body_subgraph = 0;
};

struct IfParams {
  int32_t then_subgraph = 0;
  int32_t else_subgraph = 0;
};

struct CallOnceParams {
  int32_t init_subgraph = 0;
};

// PACK: how many inputs it stacks, and along which output axis.
struct PackParams {
  int32_t values_count = 0;
  int32_t axis = 0;
};

// UNPACK: how many outputs it splits into, and along which input axis.
struct UnpackParams {
  int32_t num = 0;
  int32_t axis = 0;
};

struct BatchMatMulParams {
  bool adj_x = false;  // transpose the last two dimensions of the left operand
  bool adj_y = false;  // ... of the right operand
  bool asymmetric_quantize_inputs = false;
};

struct ResizeBilinearParams {
  bool align_corners = false;
  bool half_pixel_centers = false;
};

struct ResizeNearestNeighborParams {
  bool align_corners = false;
  bool half_pixel_centers = false;
};

struct TransposeConvParams {
  Padding padding = Padding::kSame;
  int32_t stride_w = 1, stride_h = 1;
  Activation activation = Activation::kNone;
};

// VAR_HANDLE: the resource variable its handle names. TFLM keys resource
// variables by both strings; an absent string reads as empty.
struct VarHandleParams {
  std::string container;
  std::string shared_name;
};

// No parameters (activations, PAD, QUANTIZE, ...) or an opaque op.
struct NoParams {};

using OpParams = std::variant<NoParams, Conv2DParams, DepthwiseConv2DParams, Pool2DParams,
                              FullyConnectedParams, SoftmaxParams, ConcatenationParams,
                              ElementwiseParams, ReshapeParams, SqueezeParams,
                              ReducerParams, StridedSliceParams, SplitParams, SvdfParams,
                              GatherParams, LeakyReluParams, UnidirectionalSequenceLstmParams, WhileParams,
                              IfParams, CallOnceParams, PackParams, UnpackParams, BatchMatMulParams,
                              ResizeBilinearParams, ResizeNearestNeighborParams, TransposeConvParams,
                              VarHandleParams>;

}  // namespace dmo

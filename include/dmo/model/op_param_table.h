// The one description of how dmo's op parameters are stored in a TFLite
// file: per op kind with parameters, its builtin options table (union tag and
// name), and per field of that table its name, its id (vtable slot 4 + 2*id),
// its schema default, what a reader must check of it, and the member of dmo's
// params struct that holds it. The .tflite reader and writer and the trace
// graph bundle all walk this table instead of listing fields themselves.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "dmo/model/op_kind.h"
#include "dmo/model/op_params.h"

namespace dmo {

// What a reader must check of a scalar field's value (enums are checked
// against their range whatever the rule).
enum class FieldRule : uint8_t {
  kAny,
  kAtLeastOne,      // strides, dilations, filter sizes, counts
  kNegativeAsZero,  // some converters write nonsense where 0 means "implied by the shapes"
};

// The range of the enums that options tables hold, and the words an error uses.
template <class E>
struct OptionEnum;
template <>
struct OptionEnum<Padding> {
  static constexpr std::string_view kWhat = "padding";
  static constexpr int kMax = 1;
};
template <>
struct OptionEnum<Activation> {
  static constexpr std::string_view kWhat = "fused activation";
  static constexpr int kMax = 5;
};
template <>
struct OptionEnum<DataType> {
  static constexpr std::string_view kWhat = "quantized bias type";
  static constexpr int kMax = static_cast<int>(DataType::kBFloat16);
};

// How a member is stored in the flatbuffer: enums as their underlying
// integer, bool as a byte (as flatbuffers does), numbers as themselves.
template <class M>
using WireScalar = typename std::conditional_t<std::is_enum_v<M>, std::underlying_type<M>,
                                      std::conditional<std::is_same_v<M, bool>, uint8_t, M>>::type;

template <class P, class M>
struct ScalarField {
  std::string_view name;  // as the schema spells it
  uint16_t id;            // position in the options table, deprecated fields included
  M P::*member;
  M schema_default;  // what an absent field means when the table is present
  FieldRule rule = FieldRule::kAny;
};

template <class P>
struct IntVectorField {
  std::string_view name;
  uint16_t id;
  std::vector<int32_t> P::*member;
  bool P::*given = nullptr;  // set when the file holds the vector (null: not recorded)
};

template <class Field>
inline constexpr bool kIsVectorField = false;
template <class P>
inline constexpr bool kIsVectorField<IntVectorField<P>> = true;

// A string field; absent in a file, it reads as empty.
template <class P>
struct StringField {
  std::string_view name;
  uint16_t id;
  std::string P::*member;
};

template <class Field>
inline constexpr bool kIsStringField = false;
template <class P>
inline constexpr bool kIsStringField<StringField<P>> = true;

constexpr uint16_t vtable_offset(uint16_t id) { return static_cast<uint16_t>(4 + 2 * id); }

// The fields of each params struct, in schema order; none for NoParams.
template <class P>
inline constexpr std::tuple<> kParamFields{};

// Most options tables hold a fused activation, under the same name.
template <class P>
constexpr ScalarField<P, Activation> activation_at(uint16_t id) {
  return {"fused_activation_function", id, &P::activation, Activation::kNone};
}

// Conv2DOptions, DepthwiseConv2DOptions and Pool2DOptions start alike.
template <class P>
constexpr auto padding_and_strides() {
  return std::tuple{
      ScalarField<P, Padding>{"padding", 0, &P::padding, Padding::kSame},
      ScalarField<P, int32_t>{"stride_w", 1, &P::stride_w, 0, FieldRule::kAtLeastOne},
      ScalarField<P, int32_t>{"stride_h", 2, &P::stride_h, 0, FieldRule::kAtLeastOne},
  };
}

// The dilations follow the activation at `id` and `id + 1`.
template <class P>
constexpr auto activation_and_dilations(uint16_t id) {
  return std::tuple{
      activation_at<P>(id),
      ScalarField<P, int32_t>{"dilation_w_factor", static_cast<uint16_t>(id + 1), &P::dilation_w, 1,
                              FieldRule::kAtLeastOne},
      ScalarField<P, int32_t>{"dilation_h_factor", static_cast<uint16_t>(id + 2), &P::dilation_h, 1,
                              FieldRule::kAtLeastOne},
  };
}

template <class P>
constexpr ScalarField<P, DataType> quantized_bias_type_at(uint16_t id) {
  return {"quantized_bias_type", id, &P::quantized_bias_type, DataType::kFloat32};
}

template <>
inline constexpr auto kParamFields<Conv2DParams> =
    std::tuple_cat(padding_and_strides<Conv2DParams>(), activation_and_dilations<Conv2DParams>(3),
                   std::tuple{quantized_bias_type_at<Conv2DParams>(6)});

template <>
inline constexpr auto kParamFields<DepthwiseConv2DParams> = std::tuple_cat(
    padding_and_strides<DepthwiseConv2DParams>(),
    std::tuple{ScalarField<DepthwiseConv2DParams, int32_t>{"depth_multiplier", 3,
                                                           &DepthwiseConv2DParams::depth_multiplier, 0,
                                                           FieldRule::kNegativeAsZero}},
    activation_and_dilations<DepthwiseConv2DParams>(4));

template <>
inline constexpr auto kParamFields<Pool2DParams> = std::tuple_cat(
    padding_and_strides<Pool2DParams>(),
    std::tuple{
        ScalarField<Pool2DParams, int32_t>{"filter_width", 3, &Pool2DParams::filter_w, 0, FieldRule::kAtLeastOne},
        ScalarField<Pool2DParams, int32_t>{"filter_height", 4, &Pool2DParams::filter_h, 0, FieldRule::kAtLeastOne},
        activation_at<Pool2DParams>(5),
    });

template <>
inline constexpr auto kParamFields<FullyConnectedParams> = std::tuple{
    activation_at<FullyConnectedParams>(0),
    ScalarField<FullyConnectedParams, int8_t>{"weights_format", 1, &FullyConnectedParams::weights_format, 0},
    ScalarField<FullyConnectedParams, bool>{"keep_num_dims", 2, &FullyConnectedParams::keep_num_dims, false},
    ScalarField<FullyConnectedParams, bool>{"asymmetric_quantize_inputs", 3,
                                            &FullyConnectedParams::asymmetric_quantize_inputs, false},
    quantized_bias_type_at<FullyConnectedParams>(4),
};

template <>
inline constexpr auto kParamFields<SoftmaxParams> = std::tuple{
    ScalarField<SoftmaxParams, float>{"beta", 0, &SoftmaxParams::beta, 0.0f},
};

template <>
inline constexpr auto kParamFields<ConcatenationParams> = std::tuple{
    ScalarField<ConcatenationParams, int32_t>{"axis", 0, &ConcatenationParams::axis, 0},
    activation_at<ConcatenationParams>(1),
};

// AddOptions, SubOptions and MulOptions all start with the activation.
template <>
inline constexpr auto kParamFields<ElementwiseParams> = std::tuple{
    activation_at<ElementwiseParams>(0),
};

template <>
inline constexpr auto kParamFields<ReshapeParams> = std::tuple{
    IntVectorField<ReshapeParams>{"new_shape", 0, &ReshapeParams::new_shape, &ReshapeParams::has_new_shape},
};

template <>
inline constexpr auto kParamFields<SqueezeParams> = std::tuple{
    IntVectorField<SqueezeParams>{"squeeze_dims", 0, &SqueezeParams::squeeze_dims},
};

template <>
inline constexpr auto kParamFields<ReducerParams> = std::tuple{
    ScalarField<ReducerParams, bool>{"keep_dims", 0, &ReducerParams::keep_dims, false},
};

template <>
inline constexpr auto kParamFields<StridedSliceParams> = std::tuple{
    ScalarField<StridedSliceParams, int32_t>{"begin_mask", 0, &StridedSliceParams::begin_mask, 0},
    ScalarField<StridedSliceParams, int32_t>{"end_mask", 1, &StridedSliceParams::end_mask, 0},
    ScalarField<StridedSliceParams, int32_t>{"ellipsis_mask", 2, &StridedSliceParams::ellipsis_mask, 0},
    ScalarField<StridedSliceParams, int32_t>{"new_axis_mask", 3, &StridedSliceParams::new_axis_mask, 0},
    ScalarField<StridedSliceParams, int32_t>{"shrink_axis_mask", 4, &StridedSliceParams::shrink_axis_mask, 0},
    ScalarField<StridedSliceParams, bool>{"offset", 5, &StridedSliceParams::offset, false},
};

template <>
inline constexpr auto kParamFields<SplitParams> = std::tuple{
    ScalarField<SplitParams, int32_t>{"num_splits", 0, &SplitParams::num_splits, 0, FieldRule::kAtLeastOne},
};

template <>
inline constexpr auto kParamFields<SvdfParams> = std::tuple{
    ScalarField<SvdfParams, int32_t>{"rank", 0, &SvdfParams::rank, 0, FieldRule::kAtLeastOne},
    activation_at<SvdfParams>(1),
    ScalarField<SvdfParams, bool>{"asymmetric_quantize_inputs", 2, &SvdfParams::asymmetric_quantize_inputs, false},
};

template <>
inline constexpr auto kParamFields<GatherParams> = std::tuple{
    ScalarField<GatherParams, int32_t>{"axis", 0, &GatherParams::axis, 0},
    ScalarField<GatherParams, int32_t>{"batch_dims", 1, &GatherParams::batch_dims, 0},
};

template <>
inline constexpr auto kParamFields<LeakyReluParams> = std::tuple{
    ScalarField<LeakyReluParams, float>{"alpha", 0, &LeakyReluParams::alpha, 0.0f},
};

template <>
inline constexpr auto kParamFields<UnidirectionalSequenceLstmParams> = std::tuple{
    activation_at<UnidirectionalSequenceLstmParams>(0),
    ScalarField<UnidirectionalSequenceLstmParams, float>{"cell_clip", 1, &UnidirectionalSequenceLstmParams::cell_clip,
                                                         0.0f},
    ScalarField<UnidirectionalSequenceLstmParams, float>{"proj_clip", 2, &UnidirectionalSequenceLstmParams::proj_clip,
                                                         0.0f},
    ScalarField<UnidirectionalSequenceLstmParams, bool>{"time_major", 3, &UnidirectionalSequenceLstmParams::time_major,
                                                        false},
    ScalarField<UnidirectionalSequenceLstmParams, bool>{
        "asymmetric_quantize_inputs", 4, &UnidirectionalSequenceLstmParams::asymmetric_quantize_inputs, false},
    ScalarField<UnidirectionalSequenceLstmParams, bool>{
        "diagonal_recurrent_tensors", 5, &UnidirectionalSequenceLstmParams::diagonal_recurrent_tensors, false},
};

template <>
inline constexpr auto kParamFields<WhileParams> = std::tuple{
    ScalarField<WhileParams, int32_t>{"cond_subgraph_index", 0, &WhileParams::cond_subgraph, 0},
    ScalarField<WhileParams, int32_t>{"body_subgraph_index", 1, &WhileParams::body_subgraph, 0},
};

template <>
inline constexpr auto kParamFields<IfParams> = std::tuple{
    ScalarField<IfParams, int32_t>{"then_subgraph_index", 0, &IfParams::then_subgraph, 0},
    ScalarField<IfParams, int32_t>{"else_subgraph_index", 1, &IfParams::else_subgraph, 0},
};

template <>
inline constexpr auto kParamFields<CallOnceParams> = std::tuple{
    ScalarField<CallOnceParams, int32_t>{"init_subgraph_index", 0, &CallOnceParams::init_subgraph, 0},
};

template <>
inline constexpr auto kParamFields<PackParams> = std::tuple{
    ScalarField<PackParams, int32_t>{"values_count", 0, &PackParams::values_count, 0},
    ScalarField<PackParams, int32_t>{"axis", 1, &PackParams::axis, 0},
};

template <>
inline constexpr auto kParamFields<UnpackParams> = std::tuple{
    ScalarField<UnpackParams, int32_t>{"num", 0, &UnpackParams::num, 0},
    ScalarField<UnpackParams, int32_t>{"axis", 1, &UnpackParams::axis, 0},
};

template <>
inline constexpr auto kParamFields<BatchMatMulParams> = std::tuple{
    ScalarField<BatchMatMulParams, bool>{"adj_x", 0, &BatchMatMulParams::adj_x, false},
    ScalarField<BatchMatMulParams, bool>{"adj_y", 1, &BatchMatMulParams::adj_y, false},
    ScalarField<BatchMatMulParams, bool>{"asymmetric_quantize_inputs", 2,
                                         &BatchMatMulParams::asymmetric_quantize_inputs, false},
};

// Ids 0 and 1 are the deprecated new_height and new_width.
template <>
inline constexpr auto kParamFields<ResizeBilinearParams> = std::tuple{
    ScalarField<ResizeBilinearParams, bool>{"align_corners", 2, &ResizeBilinearParams::align_corners, false},
    ScalarField<ResizeBilinearParams, bool>{"half_pixel_centers", 3, &ResizeBilinearParams::half_pixel_centers,
                                            false},
};

template <>
inline constexpr auto kParamFields<ResizeNearestNeighborParams> = std::tuple{
    ScalarField<ResizeNearestNeighborParams, bool>{"align_corners", 0, &ResizeNearestNeighborParams::align_corners,
                                                   false},
    ScalarField<ResizeNearestNeighborParams, bool>{"half_pixel_centers", 1,
                                                   &ResizeNearestNeighborParams::half_pixel_centers, false},
};

template <>
inline constexpr auto kParamFields<TransposeConvParams> =
    std::tuple_cat(padding_and_strides<TransposeConvParams>(), std::tuple{activation_at<TransposeConvParams>(3)});

// Resource variables.
template <>
inline constexpr auto kParamFields<VarHandleParams> = std::tuple{
    StringField<VarHandleParams>{"container", 0, &VarHandleParams::container},
    StringField<VarHandleParams>{"shared_name", 1, &VarHandleParams::shared_name},
};

// Calls f(field) for each field of P, in schema order.
template <class P, class F>
constexpr void for_each_param_field(F&& f) {
  std::apply([&](const auto&... field) { (f(field), ...); }, kParamFields<P>);
}

// An op kind's options table.
template <class P>
struct OpOptions {
  using Params = P;
  OpKind kind;
  uint8_t union_tag;           // its BuiltinOptions value
  std::string_view table_name;  // its BuiltinOptions name
  bool required;               // the op cannot be run without it
};

// Every op kind dmo decodes parameters for.
inline constexpr auto kOpOptions = std::tuple{
    OpOptions<ElementwiseParams>{OpKind::kAdd, 11, "AddOptions", false},
    OpOptions<Pool2DParams>{OpKind::kAveragePool2D, 5, "Pool2DOptions", true},
    OpOptions<ConcatenationParams>{OpKind::kConcatenation, 10, "ConcatenationOptions", false},
    OpOptions<Conv2DParams>{OpKind::kConv2D, 1, "Conv2DOptions", true},
    OpOptions<DepthwiseConv2DParams>{OpKind::kDepthwiseConv2D, 2, "DepthwiseConv2DOptions", true},
    OpOptions<FullyConnectedParams>{OpKind::kFullyConnected, 8, "FullyConnectedOptions", false},
    OpOptions<Pool2DParams>{OpKind::kMaxPool2D, 5, "Pool2DOptions", true},
    OpOptions<ElementwiseParams>{OpKind::kMul, 21, "MulOptions", false},
    OpOptions<ReshapeParams>{OpKind::kReshape, 17, "ReshapeOptions", false},
    OpOptions<SoftmaxParams>{OpKind::kSoftmax, 9, "SoftmaxOptions", false},
    OpOptions<SvdfParams>{OpKind::kSvdf, 6, "SVDFOptions", true},
    OpOptions<GatherParams>{OpKind::kGather, 23, "GatherOptions", false},
    OpOptions<ReducerParams>{OpKind::kMean, 27, "ReducerOptions", false},
    OpOptions<ReducerParams>{OpKind::kSum, 27, "ReducerOptions", false},
    OpOptions<ElementwiseParams>{OpKind::kSub, 28, "SubOptions", false},
    OpOptions<SqueezeParams>{OpKind::kSqueeze, 30, "SqueezeOptions", false},
    OpOptions<StridedSliceParams>{OpKind::kStridedSlice, 32, "StridedSliceOptions", false},
    OpOptions<SplitParams>{OpKind::kSplit, 35, "SplitOptions", true},
    // DIV and L2_NORMALIZATION hold only a fused activation, as ADD does.
    OpOptions<ElementwiseParams>{OpKind::kDiv, 29, "DivOptions", false},
    OpOptions<ElementwiseParams>{OpKind::kL2Normalization, 12, "L2NormOptions", false},
    OpOptions<LeakyReluParams>{OpKind::kLeakyRelu, 75, "LeakyReluOptions", false},
    OpOptions<UnidirectionalSequenceLstmParams>{OpKind::kUnidirectionalSequenceLstm, 71,
                                                "UnidirectionalSequenceLSTMOptions", false},
    // Control flow: without its options an op names no subgraph.
    OpOptions<IfParams>{OpKind::kIf, 92, "IfOptions", true},
    OpOptions<WhileParams>{OpKind::kWhile, 93, "WhileOptions", true},
    OpOptions<CallOnceParams>{OpKind::kCallOnce, 103, "CallOnceOptions", true},
    // Shape and gather ops.
    OpOptions<PackParams>{OpKind::kPack, 59, "PackOptions", true},
    OpOptions<UnpackParams>{OpKind::kUnpack, 64, "UnpackOptions", true},
    // Matrix and resampling ops.
    OpOptions<BatchMatMulParams>{OpKind::kBatchMatMul, 101, "BatchMatMulOptions", false},
    OpOptions<ResizeBilinearParams>{OpKind::kResizeBilinear, 15, "ResizeBilinearOptions", false},
    OpOptions<ResizeNearestNeighborParams>{OpKind::kResizeNearestNeighbor, 74, "ResizeNearestNeighborOptions", false},
    OpOptions<TransposeConvParams>{OpKind::kTransposeConv, 49, "TransposeConvOptions", true},
    // Resource variables: without its options a handle names no variable;
    // the options of READ_VARIABLE and ASSIGN_VARIABLE are empty tables.
    OpOptions<VarHandleParams>{OpKind::kVarHandle, 111, "VarHandleOptions", true},
    OpOptions<NoParams>{OpKind::kReadVariable, 112, "ReadVariableOptions", false},
    OpOptions<NoParams>{OpKind::kAssignVariable, 113, "AssignVariableOptions", false},
};

// Calls f(entry) with the options entry of `builtin_code`; false when dmo
// decodes no parameters for that op.
template <class F>
bool visit_op_options(int32_t builtin_code, F&& f) {
  bool found = false;
  std::apply(
      [&](const auto&... entry) {
        ((!found && static_cast<int32_t>(entry.kind) == builtin_code ? (f(entry), found = true) : false), ...);
      },
      kOpOptions);
  return found;
}

namespace op_param_table_detail {
template <class Tuple>
constexpr bool ids_ascend(const Tuple& fields) {
  int previous = -1;
  bool ascending = true;
  std::apply([&](const auto&... field) { ((ascending = ascending && field.id > previous, previous = field.id), ...); },
             fields);
  return ascending;
}
template <class... Entries>
constexpr bool all_ids_ascend(const std::tuple<Entries...>&) {
  return (ids_ascend(kParamFields<typename Entries::Params>) && ...);
}
}  // namespace op_param_table_detail

// Writers add fields in reverse schema order by size, as flatc's code does.
static_assert(op_param_table_detail::all_ids_ascend(kOpOptions), "list each params struct's fields in id order");

}  // namespace dmo

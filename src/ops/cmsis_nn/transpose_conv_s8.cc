// TRANSPOSE_CONV in the cmsis-nn families, as TFLM's
// kernels/cmsis_nn/transpose_conv.cc runs it: Eval sends FLOAT32 to
// reference_ops::TransposeConv and INT16 (16x8) to
// reference_integer_ops::TransposeConv, the reference kernels dmo already
// runs, so only int8 gets a kernel here: EvalQuantizedPerChannel ->
// arm_transpose_conv_wrapper_s8, which takes
//  - the reverse convolution (transpose_conv_reverse_s8.cc) when both
//    strides are at most 2 and the input has more than 16 channels,
//  - arm_transpose_conv_s8 (transpose_conv_rows_s8.cc) otherwise.
// Prepare requests two scratch buffers for int8, sized by CMSIS-NN's
// arm_transpose_conv_get_buffer_sizes_s8.c V.2.1.0 (ARM-software/CMSIS-NN
// 3c67a632d6c915d49a5f76857f4c5134cf2baba1, without MVE, the same with and
// without DSP):
//  - arm_transpose_conv_s8_get_buffer_size: for the reverse convolution
//    arm_convolve_s8_get_buffer_size of the upscaled input (two int16
//    im2col columns of the 4-aligned column length), otherwise the rolling
//    rows, ((input width - 1) * stride width + max(filter width, stride
//    height)) * output depth * max(filter height, stride height) int32s;
//    that function takes the height stride in the width term, so with
//    unequal strides its request differs from the rows the kernel uses.
//  - arm_transpose_conv_s8_get_reverse_conv_buffer_size: the flipped
//    filter for the reverse convolution, 0 bytes otherwise (not listed).
#include "transpose_conv_s8.h"

#include <fmt/format.h>

#include <cstdint>
#include <optional>
#include <variant>

#include "cmsis_nn_kernels.h"
#include "dmo/ops/kernels.h"
#include "dmo/ops/padding.h"

namespace dmo {
namespace {

int32_t zero_point(const Tensor& t) {
  return t.quantization.zero_point.empty() ? 0 : static_cast<int32_t>(t.quantization.zero_point[0]);
}

TransposeConvS8Layer layer_of(const OpContext& ctx, const TransposeConvParams& params) {
  const TensorRef& filter = ctx.input(kTransposeConvFilter);
  const TensorRef& input = ctx.input(kTransposeConvInput);
  const TensorRef& output = ctx.output(0);
  TransposeConvS8Layer l;
  l.batches = input.dim(0);
  l.input_height = input.dim(1);
  l.input_width = input.dim(2);
  l.input_depth = input.dim(3);
  l.filter_height = filter.dim(1);
  l.filter_width = filter.dim(2);
  l.output_height = output.dim(1);
  l.output_width = output.dim(2);
  l.output_depth = output.dim(3);
  l.stride_height = params.stride_h;
  l.stride_width = params.stride_w;
  // The glue's ComputePaddingHeightWidth, the output taken as a conv's input.
  const auto pad = [&](int32_t size, int32_t filter_size, int32_t stride) {
    return window_padding_before(size, filter_size, stride, 1,
                                 window_output_size(params.padding, size, filter_size, stride, 1));
  };
  l.pad_height = pad(output.dim(1), filter.dim(1), params.stride_h);
  l.pad_width = pad(output.dim(2), filter.dim(2), params.stride_w);
  l.has_bias = ctx.has_input(kTransposeConvBias);
  l.input_offset = -zero_point(*input.tensor);
  l.output_offset = zero_point(*output.tensor);
  // PopulateConvolutionQuantizationParams, as the reference prepare (which
  // has checked the scales) computes it.
  const Quantization& filter_quant = filter.tensor->quantization;
  for (int64_t c = 0; c < l.output_depth; ++c) {
    const double filter_scale = filter_quant.scale[filter_quant.scale.size() == 1 ? 0 : static_cast<size_t>(c)];
    l.multipliers.push_back(
        quantize_multiplier(static_cast<double>(input.tensor->quantization.scale[0]) * filter_scale /
                            static_cast<double>(output.tensor->quantization.scale[0])));
  }
  return l;
}

int64_t im2col_bytes(const TransposeConvS8Layer& l) {
  const int64_t columns = l.filter_height * l.filter_width * l.input_depth;
  return 2 * ((columns + 3) / 4 * 4) * static_cast<int64_t>(sizeof(int16_t));
}

int64_t requested_rolling_bytes(const TransposeConvS8Layer& l) {
  const int64_t width =
      ((l.input_width - 1) * l.stride_width + std::max(l.filter_width, l.stride_height)) * l.output_depth;
  return width * std::max(l.filter_height, l.stride_height) * static_cast<int64_t>(sizeof(int32_t));
}

// arm_transpose_conv_s8 stores the output rows its input rows complete
// and, per row, the output columns from the left padding on. An output
// larger than that (an output_shape beyond what input, filter and stride
// give) would be left partly unwritten or read past its rows.
void require_rolling_fit(const OpContext& ctx, const TransposeConvS8Layer& l) {
  const int64_t rows = std::min(l.output_height, std::max<int64_t>(0, l.input_height * l.stride_height - l.pad_height) +
                                                     std::max<int64_t>(0, l.filter_height - l.stride_height));
  const int64_t columns = rolling_buffer_columns(l) - l.pad_width;
  ctx.require(rows == l.output_height && l.output_width <= columns,
              fmt::format("output {}x{} is larger than the {}x{} arm_transpose_conv_s8 computes for this input, "
                          "filter and stride",
                          l.output_height, l.output_width, rows, columns));
}

}  // namespace

std::optional<PreparedKernel> prepare_cmsis_nn_transpose_conv(const OpContext& ctx) {
  // The reference prepare checks operands, shapes and quantisation with the
  // reference kernel's messages.
  (void)prepare_transpose_conv(ctx);
  if (ctx.input(kTransposeConvInput).type() != DataType::kInt8) return std::nullopt;
  const TransposeConvS8Layer layer = layer_of(ctx, std::get<TransposeConvParams>(ctx.op->params));
  const char* variant = ctx.family == KernelFamily::kCmsisNnDsp ? "DSP" : "portable";
  if (takes_reverse_conv(layer)) {
    PreparedKernel prepared = transpose_conv_reverse_s8_kernel(layer);
    prepared.implementation =
        fmt::format("arm_transpose_conv_wrapper_s8 -> arm_convolve_s8 (reverse conv, upscaled input, {})", variant);
    prepared.scratch.push_back(KernelScratch{im2col_bytes(layer), "im2col columns of two output pixels, int16"});
    prepared.scratch.push_back(
        KernelScratch{layer.input_depth * layer.filter_width * layer.filter_height * layer.output_depth,
                      "filter flipped in height and width"});
    return prepared;
  }
  require_rolling_fit(ctx, layer);
  PreparedKernel prepared = transpose_conv_rows_s8_kernel(layer, ctx.family == KernelFamily::kCmsisNnDsp);
  prepared.implementation = fmt::format("arm_transpose_conv_wrapper_s8 -> arm_transpose_conv_s8 ({})", variant);
  prepared.scratch.push_back(KernelScratch{requested_rolling_bytes(layer), "rolling output rows of int32 sums"});
  return prepared;
}

}  // namespace dmo

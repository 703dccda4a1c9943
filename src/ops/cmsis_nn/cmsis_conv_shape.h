// The geometry of a CONV_2D in the terms CMSIS-NN's convolutions take it
// (cmsis_nn_dims, cmsis_nn_conv_params), read from an op whose reference
// prepare has checked it: shared by the int8 and int16 mirrors.
#pragma once

#include <cstdint>

#include "dmo/model/op_params.h"
#include "dmo/ops/op_context.h"
#include "dmo/ops/padding.h"

namespace dmo {

struct CmsisConvShape {
  int32_t batches = 0;
  int32_t input_height = 0, input_width = 0, input_depth = 0;
  int32_t filter_height = 0, filter_width = 0, filter_depth = 0;
  int32_t output_height = 0, output_width = 0, output_depth = 0;
  int32_t stride_height = 1, stride_width = 1;
  int32_t dilation_height = 1, dilation_width = 1;
  int32_t pad_height = 0, pad_width = 0;

  int32_t groups() const { return input_depth / filter_depth; }
  int32_t channels_per_group() const { return output_depth / groups(); }
  // rhs_cols: one im2col column, one filter row.
  int32_t column_length() const { return filter_height * filter_width * filter_depth; }
};

inline CmsisConvShape cmsis_conv_shape(const OpContext& ctx, const Conv2DParams& params) {
  const TensorRef& input = ctx.input(0);
  const TensorRef& filter = ctx.input(1);
  const TensorRef& output = ctx.output(0);
  CmsisConvShape s;
  s.batches = input.dim(0);
  s.input_height = input.dim(1);
  s.input_width = input.dim(2);
  s.input_depth = input.dim(3);
  s.filter_height = filter.dim(1);
  s.filter_width = filter.dim(2);
  s.filter_depth = filter.dim(3);
  s.output_height = output.dim(1);
  s.output_width = output.dim(2);
  s.output_depth = output.dim(3);
  s.stride_height = params.stride_h;
  s.stride_width = params.stride_w;
  s.dilation_height = params.dilation_h;
  s.dilation_width = params.dilation_w;
  s.pad_height =
      window_padding_before(s.input_height, s.filter_height, s.stride_height, s.dilation_height, s.output_height);
  s.pad_width = window_padding_before(s.input_width, s.filter_width, s.stride_width, s.dilation_width, s.output_width);
  return s;
}

}  // namespace dmo

// TRANSPOSE with a constant permutation, mirroring TFLM's transpose kernel
// (TransposePrepare, TransposeEval) and reference_ops::Transpose
// (TransposeImpl; the nest is ops/eval/transpose_loops.h): the output is
// walked in row-major order and each element is loaded from the input at
// the permuted position right before it is stored (no memcpy). When the permutation keeps the
// leading axes in place, the input is read ahead of the writes, so the
// output may overlap the input's start.
// TFLM runs FLOAT32, INT8 and INT16 with 1-D to 5-D inputs; it checks the
// permutation's range but not that it is one, nor the output's shape, which
// a bad model would turn into reads outside the input: dmo checks both.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>

#include "../constant_operand.h"
#include "../element_width.h"
#include "../elementwise.h"
#include "../instance_kernel.h"
#include "../supported_types.h"
#include "dmo/ops/eval/transpose_loops.h"
#include "dmo/ops/kernels.h"

namespace dmo {

PreparedKernel prepare_transpose(const OpContext& ctx) {
  require_operand_counts(ctx, 2, 1);
  const TensorRef& input = ctx.input(0);
  const TensorRef& output = ctx.output(0);
  require_type_among(ctx, "input", input.type(), {DataType::kFloat32, DataType::kInt8, DataType::kInt16});
  require_output_type_matches_input(ctx);
  const int rank = static_cast<int>(input.rank());
  ctx.require(rank >= 1 && rank <= kMaxTransposeRank,
              fmt::format("input is {}-D; supported: 1-D to {}-D", rank, kMaxTransposeRank));
  ctx.require(ctx.input(1).rank() == 1,
              fmt::format("perm (input 1) must be 1-D, got shape {}", shape_to_string(ctx.input(1).shape())));
  const std::vector<int64_t> perm = constant_ints(ctx, 1, "perm", /*allow_int64=*/false);
  ctx.require(perm.size() == static_cast<size_t>(rank),
              fmt::format("perm has {} values for a {}-D input", perm.size(), rank));
  std::array<bool, kMaxTransposeRank> used{};
  for (int64_t p : perm) {
    ctx.require(p >= 0 && p < rank, fmt::format("perm value {} is outside 0..{}", p, rank - 1));
    ctx.require(!used[static_cast<size_t>(p)], fmt::format("perm names axis {} twice", p));
    used[static_cast<size_t>(p)] = true;
  }

  std::array<int64_t, kMaxTransposeRank> input_strides{}, out_dims{}, in_strides{};
  int64_t stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    input_strides[static_cast<size_t>(d)] = stride;
    stride *= input.dim(static_cast<size_t>(d));
  }
  Shape expected;
  for (int d = 0; d < rank; ++d) {
    const auto from = static_cast<size_t>(perm[static_cast<size_t>(d)]);
    expected.push_back(input.dim(from));
    out_dims[static_cast<size_t>(d)] = input.dim(from);
    in_strides[static_cast<size_t>(d)] = input_strides[from];
  }
  ctx.require(output.shape() == expected,
              fmt::format("output shape {} is not the input's {} permuted by perm: {}", shape_to_string(output.shape()),
                          shape_to_string(input.shape()), shape_to_string(expected)));
  PreparedKernel prepared;
  with_element_width(element_width(ctx, input.type()), [&]<typename U>() {
    TransposeLoops<U> k;
    k.rank = rank;
    std::copy(out_dims.begin(), out_dims.end(), k.out_dims);
    std::copy(in_strides.begin(), in_strides.end(), k.in_strides);
    k.elements = output.elements();
    prepared = instance_kernel(k, fmt::format("TransposeLoops<{}>", device_type_name<U>()), input.type());
  });
  return prepared;
}

}  // namespace dmo

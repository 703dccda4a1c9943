// TRANSPOSE in the cmsis-nn families, mirroring TFLM's
// kernels/cmsis_nn/transpose.cc (TransposeEval -> TransposeEvalInt8,
// tflite-micro commit 0cc6f983): INT8 goes to CMSIS-NN's arm_transpose_s8,
// FLOAT32 and INT16 run TFLM's reference kernel. TransposeEvalInt8 fails
// (TF_LITE_ENSURE) for a permutation of more than 4 axes, so dmo refuses
// those. arm_transpose_s8 (ARM-software/CMSIS-NN
// Source/TransposeFunctions/arm_transpose_s8.c at 74099792, V.1.0.0; its
// paths differ only with MVE, so the portable and DSP families are one):
//  - 1 axis: one memcpy of the whole input, which may write all of its
//    destination before reading its source (O_s 0, ops/memory_policy.h);
//  - 2 axes: arm_transpose_s8_nhcw swaps the two axes, whatever the
//    permutation says: the identity of a matrix with both sides above 1
//    would come out transposed, so dmo refuses it;
//  - 3 and 4 axes: arm_transpose_s8_default.
// Both loops read the input front to back and store each element straight
// away at its place in the output (a scatter), where TFLM's reference walks
// the output front to back and gathers from the input.
#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "../constant_operand.h"
#include "cmsis_nn_kernels.h"
#include "dmo/ops/kernels.h"

namespace dmo {
namespace {

constexpr size_t kCmsisMaxAxes = 4;

// Input element i (row-major) goes to output element sum(index[a] *
// out_stride[a]) over the input's axes a.
struct CmsisTransposeS8 {
  size_t rank = 0;
  std::array<int64_t, kCmsisMaxAxes> in_dims{}, out_strides{};
  int64_t elements = 0;
  bool memcpy_only = false;  // one axis: arm_memcpy_s8

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const TensorRef& input = io.input(0);
    const TensorRef& output = io.output(0);
    if (memcpy_only) {
      mem.template copy<int8_t>(output, 0, input, 0, elements);
      return;
    }
    std::array<int64_t, kCmsisMaxAxes> index{};
    int64_t to = 0;
    for (int64_t from = 0; from < elements; ++from) {
      mem.template store<int8_t>(output, to, mem.template load<int8_t>(input, from));
      // Next input element: the innermost axis moves fastest.
      for (size_t a = rank; a-- > 0;) {
        if (++index[a] < in_dims[a]) {
          to += out_strides[a];
          break;
        }
        to -= (in_dims[a] - 1) * out_strides[a];
        index[a] = 0;
      }
    }
  }
};

}  // namespace

std::optional<PreparedKernel> prepare_cmsis_nn_transpose(const OpContext& ctx) {
  // The reference prepare makes TFLM's checks (and that perm is one); its kernel is not used.
  prepare_transpose(ctx);
  const TensorRef& input = ctx.input(0);
  if (input.type() != DataType::kInt8) return std::nullopt;
  const size_t rank = input.rank();
  ctx.require(rank <= kCmsisMaxAxes,
              fmt::format("TFLM's cmsis_nn glue refuses an INT8 transpose of {} axes (arm_transpose_s8 takes at "
                          "most {})",
                          rank, kCmsisMaxAxes));
  const std::vector<int64_t> perm = constant_ints(ctx, 1, "perm", /*allow_int64=*/false);
  if (rank == 2) {
    ctx.require(!(perm[0] == 0 && input.dim(0) > 1 && input.dim(1) > 1),
                fmt::format("arm_transpose_s8 swaps the axes of every 2-D input, so TFLM's cmsis_nn glue would "
                            "transpose this {}x{} input although perm is the identity",
                            input.dim(0), input.dim(1)));
  }

  CmsisTransposeS8 k;
  k.rank = rank;
  k.elements = input.elements();
  k.memcpy_only = rank == 1;
  // Output row-major strides, given to the input axis each output axis takes.
  int64_t stride = 1;
  for (size_t o = rank; o-- > 0;) {
    k.out_strides[static_cast<size_t>(perm[o])] = stride;
    stride *= ctx.output(0).dim(o);
  }
  for (size_t a = 0; a < rank; ++a) k.in_dims[a] = input.dim(a);
  std::string implementation = "arm_transpose_s8_default";
  if (rank == 1) implementation = "arm_transpose_s8 (1 axis: memcpy)";
  if (rank == 2) implementation = "arm_transpose_s8_nhcw (2 axes)";
  PreparedKernel prepared = PreparedKernel::of(k);
  prepared.implementation = std::move(implementation);
  return prepared;
}

}  // namespace dmo

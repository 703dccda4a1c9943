// PAD and PADV2 in the cmsis-nn families, mirroring TFLM's
// kernels/cmsis_nn/pad.cc (PadEval -> PadEvalInt8, tflite-micro commit
// 0cc6f983, which lines a tensor of fewer than 4 dimensions up to the right
// of cmsis_nn_dims): INT8 goes to CMSIS-NN's arm_pad_s8 whatever the
// padding; FLOAT32, INT16 and INT32 run TFLM's reference kernel.
// arm_pad_s8 (CMSIS-NN Source/PadFunctions/arm_pad_s8.c, revision V.1.0.0
// of 19 Sep 2024, as TFLM vendors it; arm_memset_s8 / arm_memcpy_s8
// (Include/arm_nnsupportfunctions.h at bfc54edb) are memset / memcpy
// without MVE, so the portable and DSP paths are one) writes the output
// front to back: the pad value memset over the padded batches, rows and
// columns around each input row, and each input row memcpy'd whole when
// the channels are not padded, else pixel by pixel (memset, memcpy of the
// pixel's channels, memset). The pad value is read (PADV2's scalar input)
// before the call. A memcpy's order is unspecified, so each copy from the
// input is taken as all its stores before its loads (ops/memory_policy.h):
// the output may overlap the input as far as every copy lands wholly below
// its source.
// The glue passes only the last 4 dimensions: a leading dimension other
// than an unpadded 1 would be dropped, so dmo refuses it.
#include <array>
#include <cstdint>
#include <optional>

#include <fmt/format.h>

#include "../constant_operand.h"
#include "cmsis_nn_kernels.h"
#include "dmo/ops/kernels.h"

namespace dmo {
namespace {

constexpr size_t kCmsisDims = 4;  // n, h, w, c of cmsis_nn_dims

struct CmsisPadS8 {
  std::array<int64_t, kCmsisDims> in{}, before{}, after{}, out{};
  bool has_constant = false;
  int8_t implicit_pad = 0;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const TensorRef& input = io.input(0);
    const TensorRef& output = io.output(0);
    const int8_t pad = has_constant ? mem.template load<int8_t>(io.input(2), 0) : implicit_pad;
    int64_t o = 0, i = 0;
    auto memset_output = [&](int64_t count) {
      for (int64_t k = 0; k < count; ++k) mem.template store<int8_t>(output, o++, pad);
    };
    auto memcpy_input = [&](int64_t count) {
      mem.template copy<int8_t>(output, o, input, i, count);
      o += count;
      i += count;
    };
    const int64_t batch_block = out[1] * out[2] * out[3];
    const int64_t row_block = out[2] * out[3];
    const int64_t pixel_block = out[3];
    memset_output(batch_block * before[0]);
    for (int64_t b = 0; b < in[0]; ++b) {
      memset_output(row_block * before[1]);
      for (int64_t y = 0; y < in[1]; ++y) {
        memset_output(pixel_block * before[2]);
        if (in[3] == out[3]) {
          memcpy_input(in[2] * in[3]);
        } else {
          for (int64_t x = 0; x < in[2]; ++x) {
            memset_output(before[3]);
            memcpy_input(in[3]);
            memset_output(after[3]);
          }
        }
        memset_output(pixel_block * after[2]);
      }
      memset_output(row_block * after[1]);
    }
    memset_output(batch_block * after[0]);
  }
};

}  // namespace

std::optional<PreparedKernel> prepare_cmsis_nn_pad(const OpContext& ctx) {
  // The reference prepare makes TFLM's checks (PadPrepare); its kernel is not used.
  prepare_pad(ctx);
  const TensorRef& input = ctx.input(0);
  if (input.type() != DataType::kInt8) return std::nullopt;
  const std::vector<int64_t> paddings = constant_ints(ctx, 1, "paddings");
  const size_t rank = input.rank();
  CmsisPadS8 k;
  for (size_t d = 0; d < rank; ++d) {
    const int64_t size = input.dim(d), before = paddings[2 * d], after = paddings[2 * d + 1];
    if (d + kCmsisDims < rank) {
      ctx.require(size == 1 && before == 0 && after == 0,
                  fmt::format("TFLM's cmsis_nn glue passes arm_pad_s8 only the last {} of the input's {} "
                              "dimensions; dimension {} (size {}, padding ({}, {})) would be dropped",
                              kCmsisDims, rank, d, size, before, after));
      continue;
    }
    const size_t at = d + kCmsisDims - rank;
    k.in[at] = size;
    k.before[at] = before;
    k.after[at] = after;
  }
  for (size_t at = 0; at + rank < kCmsisDims; ++at) k.in[at] = 1;  // the dimensions the glue adds
  for (size_t at = 0; at < kCmsisDims; ++at) k.out[at] = k.before[at] + k.in[at] + k.after[at];
  k.has_constant = ctx.inputs.size() == 3 && ctx.has_input(2);
  if (!k.has_constant) {
    const Quantization& q = ctx.output(0).tensor->quantization;
    // PadPrepare has checked that the zero point is an int8.
    k.implicit_pad = static_cast<int8_t>(q.zero_point.empty() ? 0 : q.zero_point[0]);
  }
  const bool whole_rows = k.before[3] == 0 && k.after[3] == 0;
  PreparedKernel prepared = PreparedKernel::of(k);
  prepared.implementation = whole_rows ? "arm_pad_s8 (rows copied whole)" : "arm_pad_s8 (pixel by pixel)";
  return prepared;
}

}  // namespace dmo

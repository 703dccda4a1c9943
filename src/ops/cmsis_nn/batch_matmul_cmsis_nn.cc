// BATCH_MATMUL in the cmsis-nn families, mirroring TFLM's
// kernels/cmsis_nn/batch_matmul.cc (Prepare, PopulateEvalData, EvalInt8,
// EvalInt16) over CMSIS-NN's arm_batch_matmul_s8 (commit
// ff987e51ba3d3abf40625864aaf2c108f21e6a39) with arm_nn_vec_mat_mult_t_s8
// (V.6.2.0, the version taking an rhs offset) and arm_batch_matmul_s16 with
// arm_nn_vec_mat_mult_t_s16_s16. The glue sends float to reference_ops.
//  - PopulateEvalData first transposes the right operand's last two
//    dimensions into its persistent buffer unless adj_y
//    (TransposeRowsColumns), then the left operand into its own when adj_x;
//    both buffers lie outside the arena (kernel-held here).
//  - When both operands have more than 2 dimensions and the right one's
//    third-from-last is 1, the left operand's last batch dimension folds
//    into its rows.
//  - arm_batch_matmul_*: per output batch and height, per left row, one
//    vector-matrix product over the whole (transposed) right operand: the
//    right rows in groups (int8: 3 per pass over the left row portable, 2
//    with DSP; int16: 1 portable, 2 with DSP), each group's outputs stored
//    after its pass. So output row m is stored after left row m was read,
//    before left row m + 1 is.
// The glue requests no scratch buffer (arm_fully_connected_s8_get_buffer_size
// is 0 without MVE; int16 asks for none).
// Values: int8 as TFLM's reference (int32 sums of offset operands, the
// same requantization); int16 sums in int64, requantized as
// arm_nn_requantize_s64 does (a 16-bit multiplier, one rounding shift
// taken in two steps), which equals TFLM's 64-bit multiply wherever the
// result fits 32 bits.
// The glue takes at most 4 dimensions; with adj_x and the fold above it
// folds the untransposed left shape and computes only part of the output,
// so that case is refused.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <variant>
#include <vector>

#include "cmsis_nn_kernels.h"
#include "requantize_s64.h"
#include "dmo/model/data_type.h"
#include "dmo/ops/fixed_point.h"
#include "dmo/ops/kernels.h"

namespace dmo {

namespace {

// cmsis_nn_dims of a 2- to 4-D shape (FillVariableShape).
struct Nhwc {
  int64_t n = 1, h = 1, w = 1, c = 1;
};

Nhwc fill_variable_shape(const std::vector<int64_t>& shape) {
  Nhwc d;
  std::array<int64_t*, 4> slots = {&d.n, &d.h, &d.w, &d.c};
  const size_t skip = 4 - shape.size();
  for (size_t i = 0; i < shape.size(); ++i) *slots[skip + i] = shape[i];
  return d;
}

// The op's operand stored as a stack of rows x cols matrices (TransposeRowsColumns).
struct Stack {
  int64_t batches = 1, rows = 0, cols = 0;
};

Stack stack_of(const Shape& shape) {
  Stack s;
  for (size_t d = 0; d + 2 < shape.size(); ++d) s.batches *= shape[d];
  s.rows = shape[shape.size() - 2];
  s.cols = shape[shape.size() - 1];
  return s;
}

template <typename T>
struct CmsisBatchMatMulKernel {
  bool dsp = false, adj_x = false, adj_y = false;
  Nhwc lhs, rhs, out;  // after folding and transposing: lhs [.., M, K], rhs [.., N, K], out [.., M, N]
  Stack lhs_stack, rhs_stack;
  int32_t lhs_offset = 0, rhs_offset = 0, output_offset = 0;
  QuantizedMultiplier multiplier;
  int32_t min = 0, max = 0;
  mutable std::vector<T> lhs_transposed, rhs_transposed;

  template <class Memory>
  static void transpose_rows_columns(Memory& mem, const TensorRef& from, const Stack& m, std::vector<T>& to) {
    const int64_t size = m.rows * m.cols;
    for (int64_t b = 0; b < m.batches; ++b) {
      for (int64_t c = 0; c < m.cols; ++c) {
        for (int64_t r = 0; r < m.rows; ++r) {
          to[static_cast<size_t>(b * size + c * m.rows + r)] = mem.template load<T>(from, b * size + r * m.cols + c);
        }
      }
    }
  }

  int32_t requantize(std::conditional_t<std::is_same_v<T, int8_t>, int32_t, int64_t> acc) const {
    if constexpr (std::is_same_v<T, int8_t>) {
      return multiply_by_quantized_multiplier(acc, multiplier);
    } else {
      return cmsis_requantize_s64(acc, multiplier);
    }
  }

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const TensorRef& lhs_tensor = io.input(0);
    const TensorRef& rhs_tensor = io.input(1);
    const TensorRef& output = io.output(0);
    if (!adj_y) transpose_rows_columns(mem, rhs_tensor, rhs_stack, rhs_transposed);
    if (adj_x) transpose_rows_columns(mem, lhs_tensor, lhs_stack, lhs_transposed);
    auto load_lhs = [&](int64_t i) -> int32_t {
      return adj_x ? lhs_transposed[static_cast<size_t>(i)] : mem.template load<T>(lhs_tensor, i);
    };
    auto load_rhs = [&](int64_t i) -> int32_t {
      return adj_y ? mem.template load<T>(rhs_tensor, i) : rhs_transposed[static_cast<size_t>(i)];
    };
    const int64_t rows = lhs.w, depth = rhs.c, cols = rhs.w;
    const int64_t lhs_n_stride = lhs.n > 1 ? lhs.h * rows * depth : 0, lhs_h_stride = lhs.h > 1 ? rows * depth : 0;
    const int64_t rhs_n_stride = rhs.n > 1 ? rhs.h * cols * depth : 0, rhs_h_stride = rhs.h > 1 ? cols * depth : 0;
    const int64_t group = std::is_same_v<T, int8_t> ? (dsp ? 2 : 3) : (dsp ? 2 : 1);
    using Accumulator = std::conditional_t<std::is_same_v<T, int8_t>, int32_t, int64_t>;
    using Unsigned = std::make_unsigned_t<Accumulator>;
    for (int64_t bo = 0; bo < out.n; ++bo) {
      for (int64_t ho = 0; ho < out.h; ++ho) {
        const int64_t lhs_at = bo * lhs_n_stride + ho * lhs_h_stride;
        const int64_t rhs_at = bo * rhs_n_stride + ho * rhs_h_stride;
        const int64_t out_at = (bo * out.h + ho) * rows * cols;
        for (int64_t m = 0; m < rows; ++m) {
          // arm_nn_vec_mat_mult_t_*: `count` right rows per pass over left row m.
          auto pass = [&](int64_t first, int64_t count) {
            std::array<Accumulator, 3> acc{};
            for (int64_t k = 0; k < depth; ++k) {
              const Accumulator x = load_lhs(lhs_at + m * depth + k) + lhs_offset;
              for (int64_t r = 0; r < count; ++r) {
                const Accumulator w = load_rhs(rhs_at + (first + r) * depth + k) + rhs_offset;
                acc[static_cast<size_t>(r)] = static_cast<Accumulator>(static_cast<Unsigned>(acc[static_cast<size_t>(r)]) +
                                                                       static_cast<Unsigned>(x * w));
              }
            }
            for (int64_t r = 0; r < count; ++r) {
              const int32_t value = std::clamp(requantize(acc[static_cast<size_t>(r)]) + output_offset, min, max);
              mem.template store<T>(output, out_at + m * cols + first + r, static_cast<T>(value));
            }
          };
          int64_t n = 0;
          for (; n + group <= cols; n += group) pass(n, group);
          for (; n < cols; ++n) pass(n, 1);
        }
      }
    }
  }
};

std::vector<int64_t> dims_of(const Shape& shape) { return std::vector<int64_t>(shape.begin(), shape.end()); }

void swap_last_two(std::vector<int64_t>& shape) { std::swap(shape[shape.size() - 1], shape[shape.size() - 2]); }

int32_t zero_point_or_zero(const Tensor& t) {
  return t.quantization.zero_point.empty() ? 0 : static_cast<int32_t>(t.quantization.zero_point[0]);
}

template <typename T>
PreparedKernel cmsis_batch_matmul(const OpContext& ctx, const BatchMatMulParams& params) {
  std::vector<int64_t> lhs = dims_of(ctx.input(0).shape());
  std::vector<int64_t> rhs = dims_of(ctx.input(1).shape());
  std::vector<int64_t> out = dims_of(ctx.output(0).shape());
  if (rhs.size() > 2 && lhs.size() > 2 && rhs[rhs.size() - 3] == 1) {
    ctx.require(!params.adj_x,
                "TFLM's cmsis_nn batch_matmul folds the untransposed left operand when adj_x is set and the right "
                "operand's third-from-last dimension is 1, and computes only part of the output");
    // [..., Q, R, S] -> [..., Q * R, S]; [..., 1, X, Y] -> [..., X, Y]; the output likewise.
    const size_t nl = lhs.size(), nr = rhs.size(), no = out.size();
    lhs[nl - 3] *= lhs[nl - 2];
    lhs[nl - 2] = lhs[nl - 1];
    lhs.pop_back();
    rhs[nr - 3] = rhs[nr - 2];
    rhs[nr - 2] = rhs[nr - 1];
    rhs.pop_back();
    out[no - 3] = lhs[nl - 3];
    out[no - 2] = out[no - 1];
    out.pop_back();
  }
  if (!params.adj_y) swap_last_two(rhs);
  if (params.adj_x) swap_last_two(lhs);

  CmsisBatchMatMulKernel<T> k;
  k.dsp = ctx.family == KernelFamily::kCmsisNnDsp;
  k.adj_x = params.adj_x;
  k.adj_y = params.adj_y;
  k.lhs = fill_variable_shape(lhs);
  k.rhs = fill_variable_shape(rhs);
  k.out = fill_variable_shape(out);
  k.lhs_stack = stack_of(ctx.input(0).shape());
  k.rhs_stack = stack_of(ctx.input(1).shape());
  const Tensor& lhs_tensor = *ctx.input(0).tensor;
  const Tensor& rhs_tensor = *ctx.input(1).tensor;
  const Tensor& out_tensor = *ctx.output(0).tensor;
  k.lhs_offset = -zero_point_or_zero(lhs_tensor);
  k.rhs_offset = -zero_point_or_zero(rhs_tensor);
  k.output_offset = zero_point_or_zero(out_tensor);
  // GetQuantizedConvolutionMultipler: the input scales multiplied in float, divided in double.
  const float product = lhs_tensor.quantization.scale[0] * rhs_tensor.quantization.scale[0];
  k.multiplier = quantize_multiplier(static_cast<double>(product) / static_cast<double>(out_tensor.quantization.scale[0]));
  k.min = std::numeric_limits<T>::min();
  k.max = std::numeric_limits<T>::max();
  if (params.adj_x) k.lhs_transposed.resize(static_cast<size_t>(ctx.input(0).elements()));
  if (!params.adj_y) k.rhs_transposed.resize(static_cast<size_t>(ctx.input(1).elements()));
  PreparedKernel prepared = PreparedKernel::of(std::move(k));
  prepared.implementation = fmt::format("{} ({})", std::is_same_v<T, int8_t> ? "arm_batch_matmul_s8" : "arm_batch_matmul_s16",
                                        ctx.family == KernelFamily::kCmsisNnDsp ? "DSP" : "portable");
  return prepared;
}

}  // namespace

std::optional<PreparedKernel> prepare_cmsis_nn_batch_matmul(const OpContext& ctx) {
  // The reference prepare makes TFLM's checks (and names the op in its messages).
  (void)prepare_batch_matmul(ctx);
  const DataType type = ctx.input(0).type();
  if (type == DataType::kFloat32) return std::nullopt;  // reference_ops::BatchMatMul
  for (size_t i = 0; i < 2; ++i) {
    ctx.require(ctx.input(i).rank() <= 4,
                fmt::format("{} operand {} has {} dimensions; TFLM's cmsis_nn batch_matmul takes at most 4",
                            i == 0 ? "left" : "right", shape_to_string(ctx.input(i).shape()), ctx.input(i).rank()));
  }
  const BatchMatMulParams params = [&] {
    const auto* p = std::get_if<BatchMatMulParams>(&ctx.op->params);
    return p ? *p : BatchMatMulParams{};
  }();
  if (type == DataType::kInt16) return cmsis_batch_matmul<int16_t>(ctx, params);
  return cmsis_batch_matmul<int8_t>(ctx, params);
}

}  // namespace dmo

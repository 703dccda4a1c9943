// BATCH_MATMUL, mirroring TFLM's batch_matmul.cc (BatchMatMulPrepare,
// BatchMatMulEval) and the reference_ops::BatchMatMul it calls (float; and
// the <T, AccumT> template: int8 with int32 sums, int16 with int64 sums).
//  - Eval first transposes the last two dimensions of the right operand
//    into its transposed buffer unless adj_y (TransposeRowsColumns), then
//    the left operand into its own buffer when adj_x. TFLM allocates both
//    buffers as persistent memory, outside the planned arena
//    (`rhs_transposed` and `lhs_transposed` here). A constant right operand
//    is transposed on the first inference only: the same loads then.
//  - It passes the operands swapped (right first), so the reference loop
//    computes output [A x C] as C x A column-major: per batch, for each
//    left row j, for each right column i, the dot product over the shared
//    depth, then one store at j * C + i. Output rows are written in
//    ascending order, each after its left row was read again C times.
//  - ReshapeToFlattenBatchDimsIfPossible: when the right operand has a
//    third-from-last dimension of 1, the left operand's last batch
//    dimension folds into its rows (same memory, same values).
// int8: (rhs + -rhs_zp) * (lhs + -lhs_zp) summed in int32, scaled by
// lhs_scale * rhs_scale / output_scale, plus the output zero point, clamped.
// int16: zero points must be 0; int64 sums and TFLite's 64-bit multiply.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "../elementwise.h"
#include "dmo/model/data_type.h"
#include "dmo/ops/fixed_point.h"
#include "dmo/ops/kernels.h"

namespace dmo {
namespace {

using Dims5 = std::array<int64_t, 5>;

// reference_ops::BatchMatMul extends both shapes to 5-D.
Dims5 extend_to_5d(const std::vector<int64_t>& shape) {
  Dims5 dims{1, 1, 1, 1, 1};
  std::copy(shape.begin(), shape.end(), dims.begin() + static_cast<std::ptrdiff_t>(5 - shape.size()));
  return dims;
}

// batch_matmul::extent: the stride of batch dimension `d`, or 0 when the
// dimension is broadcast (size 1).
int64_t batch_extent(const Dims5& dims, size_t d) {
  if (dims[d] == 1) return 0;
  int64_t product = 1;
  for (size_t i = d + 1; i < 5; ++i) product *= dims[i];
  return product;
}

std::vector<int64_t> swap_last_two(std::vector<int64_t> shape) {
  std::swap(shape[shape.size() - 1], shape[shape.size() - 2]);
  return shape;
}

// TFLM's TransposeRowsColumns geometry: matrices of rows x cols, stacked.
struct MatrixStack {
  int64_t batches = 1, rows = 0, cols = 0;
};

MatrixStack matrix_stack(const Shape& shape) {
  MatrixStack m;
  for (size_t d = 0; d + 2 < shape.size(); ++d) m.batches *= shape[d];
  m.rows = shape[shape.size() - 2];
  m.cols = shape[shape.size() - 1];
  return m;
}

// The geometry of the reference loop, in its own naming: its "lhs" is the
// op's right operand and its "rhs" the op's left operand.
struct BatchMatMulGeometry {
  Dims5 ref_lhs{}, ref_rhs{};
  int64_t batch0 = 1, batch1 = 1, batch2 = 1;
  int64_t lhs_ext0 = 0, lhs_ext1 = 0, lhs_ext2 = 0;
  int64_t rhs_ext0 = 0, rhs_ext1 = 0, rhs_ext2 = 0;
  int64_t lhs_rows = 0, rhs_cols = 0, accum_depth = 0;
};

struct BatchMatMulQuantization {
  int32_t input_offset = 0;   // -(left operand zero point)
  int32_t filter_offset = 0;  // -(right operand zero point)
  int32_t output_offset = 0;
  QuantizedMultiplier multiplier;
  int32_t min = 0, max = 0;
};

template <typename T>
struct BatchMatMulKernel {
  BatchMatMulGeometry g;
  BatchMatMulQuantization q;
  bool adj_x = false, adj_y = false;
  MatrixStack lhs_stack, rhs_stack;  // the op's operands as stored
  // TFLM's persistent transposed operands.
  mutable std::vector<T> lhs_transposed, rhs_transposed;

  // TransposeRowsColumns: each matrix of `from` transposed into `to`,
  // walking the transposed layout in order.
  template <class Memory>
  static void transpose_rows_columns(Memory& mem, const TensorRef& from, const MatrixStack& m, std::vector<T>& to) {
    const int64_t size = m.rows * m.cols;
    for (int64_t b = 0; b < m.batches; ++b) {
      for (int64_t c = 0; c < m.cols; ++c) {
        for (int64_t r = 0; r < m.rows; ++r) {
          to[static_cast<size_t>(b * size + c * m.rows + r)] = mem.template load<T>(from, b * size + r * m.cols + c);
        }
      }
    }
  }

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const TensorRef& lhs = io.input(0);
    const TensorRef& rhs = io.input(1);
    const TensorRef& output = io.output(0);
    if (!adj_y) transpose_rows_columns(mem, rhs, rhs_stack, rhs_transposed);
    if (adj_x) transpose_rows_columns(mem, lhs, lhs_stack, lhs_transposed);
    // The reference loop's operands: the right one (transposed unless
    // adj_y) first, then the left one (transposed when adj_x).
    auto load_ref_lhs = [&](int64_t i) {
      return adj_y ? mem.template load<T>(rhs, i) : rhs_transposed[static_cast<size_t>(i)];
    };
    auto load_ref_rhs = [&](int64_t i) {
      return adj_x ? lhs_transposed[static_cast<size_t>(i)] : mem.template load<T>(lhs, i);
    };
    const int64_t block = g.lhs_rows * g.rhs_cols;
    for (int64_t b0 = 0; b0 < g.batch0; ++b0) {
      for (int64_t b1 = 0; b1 < g.batch1; ++b1) {
        for (int64_t b2 = 0; b2 < g.batch2; ++b2) {
          const int64_t lhs_base = b0 * g.lhs_ext0 + b1 * g.lhs_ext1 + b2 * g.lhs_ext2;
          const int64_t rhs_base = b0 * g.rhs_ext0 + b1 * g.rhs_ext1 + b2 * g.rhs_ext2;
          const int64_t out_base = ((b0 * g.batch1 * g.batch2) + b1 * g.batch2 + b2) * block;
          for (int64_t j = 0; j < g.rhs_cols; ++j) {
            for (int64_t i = 0; i < g.lhs_rows; ++i) {
              const int64_t lhs_row = lhs_base + g.accum_depth * i;
              const int64_t rhs_row = rhs_base + g.accum_depth * j;
              mem.template store<T>(output, out_base + g.lhs_rows * j + i, dot(load_ref_lhs, load_ref_rhs, lhs_row, rhs_row));
            }
          }
        }
      }
    }
  }

  template <class LoadLhs, class LoadRhs>
  T dot(const LoadLhs& load_lhs, const LoadRhs& load_rhs, int64_t lhs_row, int64_t rhs_row) const {
    if constexpr (std::is_same_v<T, float>) {
      float total = 0.0f;
      for (int64_t k = 0; k < g.accum_depth; ++k) total += load_lhs(lhs_row + k) * load_rhs(rhs_row + k);
      return total;
    } else {
      // int32 sums for int8 (wrapping as TFLite's targets do), int64 for int16.
      using Accum = std::conditional_t<std::is_same_v<T, int8_t>, int32_t, int64_t>;
      using Unsigned = std::make_unsigned_t<Accum>;
      Accum total = 0;
      for (int64_t k = 0; k < g.accum_depth; ++k) {
        const Accum lhs_value = load_lhs(lhs_row + k);
        const Accum rhs_value = load_rhs(rhs_row + k);
        const Accum product = (lhs_value + q.filter_offset) * (rhs_value + q.input_offset);
        total = static_cast<Accum>(static_cast<Unsigned>(total) + static_cast<Unsigned>(product));
      }
      int32_t scaled = 0;
      if constexpr (std::is_same_v<T, int8_t>) {
        scaled = multiply_by_quantized_multiplier(total, q.multiplier);
      } else {
        scaled = multiply_by_quantized_multiplier_wide(total, q.multiplier);
      }
      scaled += q.output_offset;
      scaled = std::min(std::max(scaled, q.min), q.max);
      return static_cast<T>(scaled);
    }
  }
};

std::vector<int64_t> dims_of(const Shape& shape) { return std::vector<int64_t>(shape.begin(), shape.end()); }

// BatchMatMulPrepare's checks and ReshapeOutputTensor's output shape.
void check_shapes(const OpContext& ctx, const BatchMatMulParams& params) {
  const Shape& lhs = ctx.input(0).shape();
  const Shape& rhs = ctx.input(1).shape();
  const Shape& out = ctx.output(0).shape();
  for (const auto& [shape, what] : {std::pair{&lhs, "left operand"}, std::pair{&rhs, "right operand"}}) {
    ctx.require(shape->size() >= 2 && shape->size() <= 5,
                fmt::format("{} {} must have 2 to 5 dimensions", what, shape_to_string(*shape)));
  }
  const size_t rank = std::max(lhs.size(), rhs.size());
  std::vector<int64_t> l(rank, 1), r(rank, 1), expected(rank, 1);
  std::copy(lhs.begin(), lhs.end(), l.begin() + static_cast<std::ptrdiff_t>(rank - lhs.size()));
  std::copy(rhs.begin(), rhs.end(), r.begin() + static_cast<std::ptrdiff_t>(rank - rhs.size()));
  for (size_t d = 0; d + 2 < rank; ++d) {
    ctx.require(l[d] == r[d] || l[d] == 1 || r[d] == 1,
                fmt::format("batch dimensions of {} and {} do not broadcast", shape_to_string(lhs),
                            shape_to_string(rhs)));
    expected[d] = l[d] == 1 ? r[d] : l[d];
  }
  const int64_t lhs_depth = params.adj_x ? l[rank - 2] : l[rank - 1];
  const int64_t rhs_depth = params.adj_y ? r[rank - 1] : r[rank - 2];
  ctx.require(lhs_depth == rhs_depth,
              fmt::format("left operand {} (adj_x {}) and right operand {} (adj_y {}) differ in depth, {} vs {}",
                          shape_to_string(lhs), params.adj_x, shape_to_string(rhs), params.adj_y, lhs_depth,
                          rhs_depth));
  expected[rank - 2] = params.adj_x ? l[rank - 1] : l[rank - 2];
  expected[rank - 1] = params.adj_y ? r[rank - 2] : r[rank - 1];
  ctx.require(dims_of(out) == expected,
              fmt::format("output {} should be {}", shape_to_string(out),
                          shape_to_string(Shape(expected.begin(), expected.end()))));
}

// The shapes BatchMatMulEval hands the reference loop, flattened where
// ReshapeToFlattenBatchDimsIfPossible does.
BatchMatMulGeometry geometry(const OpContext& ctx, const BatchMatMulParams& params) {
  const std::vector<int64_t> lhs = dims_of(ctx.input(0).shape());
  const std::vector<int64_t> rhs = dims_of(ctx.input(1).shape());
  std::vector<int64_t> ref_lhs = params.adj_y ? rhs : swap_last_two(rhs);  // from the right operand
  std::vector<int64_t> ref_rhs = params.adj_x ? lhs : swap_last_two(lhs);  // from the left operand
  const size_t nl = ref_rhs.size(), nr = ref_lhs.size();
  if (nr > 2 && nl > 2 && ref_lhs[nr - 3] == 1) {
    std::vector<int64_t> folded(ref_rhs.begin(), ref_rhs.end() - 1);
    folded[nl - 3] = ref_rhs[nl - 2];
    folded[nl - 2] = ref_rhs[nl - 3] * ref_rhs[nl - 1];
    ref_rhs = folded;
    std::vector<int64_t> dropped(ref_lhs.begin(), ref_lhs.end() - 1);
    dropped[nr - 3] = ref_lhs[nr - 2];
    dropped[nr - 2] = ref_lhs[nr - 1];
    ref_lhs = dropped;
  }
  BatchMatMulGeometry g;
  g.ref_lhs = extend_to_5d(ref_lhs);
  g.ref_rhs = extend_to_5d(ref_rhs);
  auto broadcast = [](int64_t a, int64_t b) { return a == 1 ? b : a; };
  g.batch0 = broadcast(g.ref_lhs[0], g.ref_rhs[0]);
  g.batch1 = broadcast(g.ref_lhs[1], g.ref_rhs[1]);
  g.batch2 = broadcast(g.ref_lhs[2], g.ref_rhs[2]);
  g.lhs_ext0 = batch_extent(g.ref_lhs, 0);
  g.lhs_ext1 = batch_extent(g.ref_lhs, 1);
  g.lhs_ext2 = batch_extent(g.ref_lhs, 2);
  g.rhs_ext0 = batch_extent(g.ref_rhs, 0);
  g.rhs_ext1 = batch_extent(g.ref_rhs, 1);
  g.rhs_ext2 = batch_extent(g.ref_rhs, 2);
  g.lhs_rows = g.ref_lhs[3];
  g.rhs_cols = g.ref_rhs[4];
  g.accum_depth = g.ref_lhs[4];
  return g;
}

int32_t zero_point(const Tensor& t) { return t.quantization.zero_point.empty() ? 0 : static_cast<int32_t>(t.quantization.zero_point[0]); }

// BatchMatMulPrepare's quantization: GetQuantizedConvolutionMultipler (the
// two input scales multiplied in float, divided in double) and the full
// range of the type, as the op has no fused activation.
BatchMatMulQuantization quantization(const OpContext& ctx, DataType type) {
  const char* names[] = {"left operand", "right operand"};
  const Tensor* tensors[] = {ctx.input(0).tensor, ctx.input(1).tensor};
  for (int i = 0; i < 2; ++i) {
    ctx.require(tensors[i]->quantization.scale.size() == 1,
                fmt::format("{} ({}) needs one quantization scale", names[i], data_type_name(type)));
  }
  const Tensor& out = *ctx.output(0).tensor;
  ctx.require(out.quantization.scale.size() == 1 && out.quantization.scale[0] > 0.0f,
              fmt::format("output ({}) needs one positive quantization scale", data_type_name(type)));
  BatchMatMulQuantization q;
  q.input_offset = -zero_point(*tensors[0]);
  q.filter_offset = -zero_point(*tensors[1]);
  q.output_offset = zero_point(out);
  if (type == DataType::kInt16) {
    ctx.require(q.input_offset == 0 && q.filter_offset == 0 && q.output_offset == 0,
                "INT16 operands and output must have zero point 0");
  }
  const float product = tensors[0]->quantization.scale[0] * tensors[1]->quantization.scale[0];
  const double real = static_cast<double>(product) / static_cast<double>(out.quantization.scale[0]);
  ctx.require(std::isfinite(real) && real >= 0.0,
              fmt::format("effective output scale {} is not a finite non-negative number", real));
  q.multiplier = quantize_multiplier(real);
  // TFLite's 64-bit multiply takes shifts below 8 only.
  ctx.require(q.multiplier.shift < (type == DataType::kInt16 ? 8 : 32),
              fmt::format("effective output scale {} is too large", real));
  const QuantizedRange range = type_range(type);
  q.min = range.min;
  q.max = range.max;
  return q;
}

template <typename T>
PreparedKernel make_kernel(const OpContext& ctx, const BatchMatMulParams& params) {
  BatchMatMulKernel<T> k;
  k.g = geometry(ctx, params);
  if constexpr (!std::is_same_v<T, float>) k.q = quantization(ctx, ctx.input(0).type());
  k.adj_x = params.adj_x;
  k.adj_y = params.adj_y;
  k.lhs_stack = matrix_stack(ctx.input(0).shape());
  k.rhs_stack = matrix_stack(ctx.input(1).shape());
  if (params.adj_x) k.lhs_transposed.resize(static_cast<size_t>(ctx.input(0).elements()));
  if (!params.adj_y) k.rhs_transposed.resize(static_cast<size_t>(ctx.input(1).elements()));
  return PreparedKernel::of(std::move(k));
}

}  // namespace

PreparedKernel prepare_batch_matmul(const OpContext& ctx) {
  require_operand_counts(ctx, 2, 1);
  const BatchMatMulParams params = [&] {
    const auto* p = std::get_if<BatchMatMulParams>(&ctx.op->params);
    return p ? *p : BatchMatMulParams{};
  }();
  const DataType type = ctx.input(0).type();
  if (type != DataType::kFloat32 && type != DataType::kInt8 && type != DataType::kInt16) {
    fail_unsupported_type(ctx, "left operand", type, "FLOAT32, INT8, INT16");
  }
  ctx.require(ctx.input(1).type() == type,
              fmt::format("right operand type {} differs from left operand type {} (hybrid is not supported)",
                          data_type_name(ctx.input(1).type()), data_type_name(type)));
  require_output_type_matches_input(ctx);
  check_shapes(ctx, params);
  switch (type) {
    case DataType::kInt8: return make_kernel<int8_t>(ctx, params);
    case DataType::kInt16: return make_kernel<int16_t>(ctx, params);
    default: return make_kernel<float>(ctx, params);
  }
}

}  // namespace dmo

#include "dmo/overlap/analytic_overlap.h"

#include <algorithm>
#include <cmath>

#include "dmo/ops/padding.h"

namespace dmo {

double analytic_overlap_elements(double a, double b, double n) {
  // Case A (a >= 1): the bound binds at the start, O_s = N + b/a.
  // Case B (a < 1): it binds at the end, O_s = a*N + b. The minimum covers both.
  return n + std::min(b / a, a * n + b - n);
}

namespace {

struct WindowShape {
  int64_t w_i, d_i, h_i, w_o, d_o, h_o;
};

// Also nullopt for an empty tensor: the closed forms divide by the output's
// row and depth.
std::optional<WindowShape> nhwc_batch1(const Tensor& in, const Tensor& out) {
  if (in.shape.size() != 4 || out.shape.size() != 4 || in.shape[0] != 1 || out.shape[0] != 1) return std::nullopt;
  if (in.element_count == 0 || out.element_count == 0) return std::nullopt;
  return WindowShape{in.shape[2], in.shape[3], in.shape[1], out.shape[2], out.shape[3], out.shape[1]};
}

// The filter of a conv (OHWI) or depthwise conv (1HWO): a file may give it
// any rank (the kernels refuse it; the closed form must not read past it).
const Tensor* filter_4d(const Subgraph& subgraph, const Op& op) {
  if (op.inputs.size() < 2 || op.inputs[1] < 0) return nullptr;
  const Tensor& filter = subgraph.tensors.at(static_cast<size_t>(op.inputs[1]));
  return filter.shape.size() == 4 ? &filter : nullptr;
}

AnalyticOverlap from_line(double a, double b, const WindowShape& s, int32_t s_h, int32_t s_w, const Tensor& out,
                          const char* rule) {
  if (static_cast<int64_t>(s_h) * s.w_i < static_cast<int64_t>(s_w) * s.w_o) {
    return {std::nullopt, std::string(rule) + ": line not valid (s_h*W_i < s_w*W_o)"};
  }
  const double n = static_cast<double>(out.element_count);
  double elements = std::clamp(analytic_overlap_elements(a, b, n), 0.0, n);
  auto whole = static_cast<int64_t>(std::floor(elements));
  return {whole * (out.byte_size / std::max<int64_t>(out.element_count, 1)), rule};
}

bool same_shape(const Tensor& a, const Tensor& b) { return a.shape == b.shape; }

// Padding before the first window along one axis. Walking descending is
// walking ascending over the mirrored tensors, where the window of mirrored
// output o starts at o*s - p' with p' the padding the real walk has AFTER
// its last window: (O-1)*s + (K-1)*d + 1 - I - p (negative when VALID
// windows leave input rows unread at the end).
int64_t padding_before(int64_t in, int32_t kernel, int32_t stride, int32_t dilation, int64_t out, bool descending) {
  int64_t before = window_padding_before(static_cast<int32_t>(in), kernel, stride, dilation, static_cast<int32_t>(out));
  if (!descending) return before;
  return (out - 1) * stride + int64_t{kernel - 1} * dilation + 1 - in - before;
}

// CONCATENATION copies, per outer index r of R, each input's block of b_k
// elements with memcpy to offset r*W + c_k of the output (W the output's
// row, c_k the blocks before input k). A memcpy may write all of its
// destination before reading its source, so copy (r, k) reads the input
// from r*b_k after the output is written up to r*W + c_k + b_k: the output
// may overlap the input by R*W - max over r, k of (r*(W - b_k) + c_k + b_k)
// elements, r = R - 1 the worst (exact for the kernel's order). A copy of
// one byte reads it before writing it, one element less.
AnalyticOverlap concatenation_overlap(const Subgraph& subgraph, const Op& op, int32_t input, const Tensor& out) {
  const char* rule = "concatenation: every block's memcpy below its source";
  const auto rank = static_cast<int32_t>(out.shape.size());
  int32_t axis = std::get<ConcatenationParams>(op.params).axis;
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank || out.element_count == 0) return {std::nullopt, "concatenation: no rows"};
  int64_t rows = 1, inner = 1;
  for (int32_t d = 0; d < axis; ++d) rows *= out.shape[static_cast<size_t>(d)];
  for (int32_t d = axis + 1; d < rank; ++d) inner *= out.shape[static_cast<size_t>(d)];
  const int64_t row = out.element_count / rows;
  const int64_t element = out.byte_size / out.element_count;
  int64_t before = 0, worst = -1;
  for (int32_t t : op.inputs) {
    const Tensor& in = subgraph.tensors.at(static_cast<size_t>(t));
    if (static_cast<int32_t>(in.shape.size()) != rank) return {std::nullopt, "concatenation: ranks differ"};
    const int64_t block = in.shape[static_cast<size_t>(axis)] * inner;
    const int64_t one_byte = block * element == 1 ? 1 : 0;
    if (t == input && block > 0) worst = std::max(worst, (rows - 1) * (row - block) + before + block - one_byte);
    before += block;
  }
  if (worst < 0) return {out.byte_size, rule};  // nothing is copied from the input
  return {std::clamp<int64_t>(rows * row - worst, 0, rows * row) * element, rule};
}

// A product that stores output (b, u) = b*U + u once, after reading input
// row b (D elements from b*D) whole, every unit re-reading that row. With
// the input at 0 and the output's end at O_s, store (b, u) must end at or
// below the first input byte still to be read: row b's start while units
// of row b remain (u < U - 1), row b + 1's start after the last unit. The
// least of those bounds over b is exact for that order (two candidates per
// b, linear in b).
int64_t row_product_overlap(int64_t batches, int64_t depth, int64_t units, int64_t e_i, int64_t e_o, int64_t x) {
  int64_t bound = x;
  for (int64_t b = 0; b < batches; ++b) {
    // Units before the last re-read row b: the last of them ends at (b*U + U - 1)*e_o.
    if (units >= 2) bound = std::min(bound, b * depth * e_i + x - (b * units + units - 1) * e_o);
    // The last unit of a row before the last: row b + 1 is read next.
    if (b + 1 < batches) bound = std::min(bound, (b + 1) * depth * e_i + x - (b + 1) * units * e_o);
  }
  return std::clamp<int64_t>(bound, 0, x);
}

// FULLY_CONNECTED: input row b read whole per unit, then store (b, u).
AnalyticOverlap fully_connected_overlap(const Op& op, int32_t input, const Tensor& in, const Tensor& out) {
  const char* rule = "fully connected: each store below the input rows still to be read";
  if (op.inputs.empty() || op.inputs[0] != input) return {std::nullopt, "fully connected: not the data input"};
  for (size_t k = 1; k < op.inputs.size(); ++k) {
    if (op.inputs[k] == input) return {std::nullopt, "fully connected: the input is also an operand"};
  }
  if (in.element_count == 0 || out.element_count == 0) return {std::nullopt, "fully connected: empty"};
  const int64_t units = out.shape.empty() ? 1 : out.shape.back();
  if (units <= 0 || out.element_count % units != 0) return {std::nullopt, "fully connected: no units"};
  const int64_t batches = out.element_count / units;
  if (in.element_count % batches != 0) return {std::nullopt, "fully connected: rows differ"};
  const int64_t depth = in.element_count / batches;
  const int64_t e_i = in.byte_size / in.element_count, e_o = out.byte_size / out.element_count;
  return {row_product_overlap(batches, depth, units, e_i, e_o, out.byte_size), rule};
}

// BATCH_MATMUL (ops/batch_matmul): the right operand, unless adj_y, and the
// left one when adj_x, are transposed out of the arena before the first
// store, so every load of them precedes every store. Otherwise the left
// operand is read as FULLY_CONNECTED reads its input: per output row (the
// batches flattened) the left row whole, once per output column, then the
// store; exact when the left operand's batches are the output's (not
// broadcast, so no row is read again for a later batch).
AnalyticOverlap batch_matmul_overlap(const Subgraph& subgraph, const Op& op, int32_t input, const Tensor& in,
                                     const Tensor& out) {
  if (op.inputs.size() < 2 || op.inputs[0] == op.inputs[1]) return {std::nullopt, "batch matmul: one tensor twice"};
  if (in.element_count == 0 || out.element_count == 0) return {std::nullopt, "batch matmul: empty"};
  const auto& p = std::get<BatchMatMulParams>(op.params);
  const bool left = op.inputs[0] == input;
  if (op.inputs[1] == input && !p.adj_y) return {out.byte_size, "batch matmul: the right operand is transposed first"};
  if (!left) return {std::nullopt, "batch matmul: the right operand read in the loop"};
  if (p.adj_x) return {out.byte_size, "batch matmul: the left operand is transposed first"};
  const Tensor& right = subgraph.tensors.at(static_cast<size_t>(op.inputs[1]));
  if (in.shape.size() < 2 || right.shape.size() < 2 || out.shape.size() < 2) return {std::nullopt, "batch matmul: rank"};
  // The left operand's batches must be the output's, dimension by dimension.
  const size_t rank = out.shape.size();
  if (in.shape.size() != rank) return {std::nullopt, "batch matmul: the left operand's batches are broadcast"};
  for (size_t d = 0; d + 2 < rank; ++d) {
    if (in.shape[d] != out.shape[d]) return {std::nullopt, "batch matmul: the left operand's batches are broadcast"};
  }
  const int64_t depth = in.shape[rank - 1], columns = out.shape[rank - 1];
  if (columns <= 0 || depth <= 0 || out.element_count % columns != 0) return {std::nullopt, "batch matmul: no columns"};
  const int64_t rows = out.element_count / columns;
  if (in.element_count != rows * depth) return {std::nullopt, "batch matmul: rows differ"};
  const int64_t e_i = in.byte_size / in.element_count, e_o = out.byte_size / out.element_count;
  return {row_product_overlap(rows, depth, columns, e_i, e_o, out.byte_size),
          "batch matmul: each store below the left rows still to be read"};
}

}  // namespace

AnalyticOverlap analytic_safe_overlap(const Subgraph& subgraph, int32_t op_index, int32_t input, int32_t output,
                                      bool descending) {
  const Op& op = subgraph.ops.at(static_cast<size_t>(op_index));
  const Tensor& in = subgraph.tensors.at(static_cast<size_t>(input));
  const Tensor& out = subgraph.tensors.at(static_cast<size_t>(output));
  const bool is_data_input = !op.inputs.empty() && op.inputs[0] == input;

  switch (static_cast<OpKind>(op.builtin_code)) {
    case OpKind::kConv2D: {
      auto s = nhwc_batch1(in, out);
      if (!s || !is_data_input) return {std::nullopt, "conv: not a batch-1 NHWC data input"};
      const auto& p = std::get<Conv2DParams>(op.params);
      const Tensor* f = filter_4d(subgraph, op);
      if (!f) return {std::nullopt, "conv: filter not 4-D"};
      const Tensor& filter = *f;
      int64_t p_h = padding_before(s->h_i, filter.shape[1], p.stride_h, p.dilation_h, s->h_o, descending);
      int64_t p_w = padding_before(s->w_i, filter.shape[2], p.stride_w, p.dilation_w, s->w_o, descending);
      double a = static_cast<double>(p.stride_h * s->w_i * s->d_i) / static_cast<double>(s->w_o * s->d_o);
      double b = static_cast<double>((s->w_o * p.stride_w - p_h * s->w_i - p.stride_h * s->w_i - p.stride_w - p_w) *
                                         s->d_i + 1);
      return from_line(a, b, *s, p.stride_h, p.stride_w, out, "conv2d line");
    }
    case OpKind::kDepthwiseConv2D: {
      auto s = nhwc_batch1(in, out);
      if (!s || !is_data_input) return {std::nullopt, "depthwise: not a batch-1 NHWC data input"};
      const auto& p = std::get<DepthwiseConv2DParams>(op.params);
      const Tensor* f = filter_4d(subgraph, op);
      if (!f) return {std::nullopt, "depthwise: filter not 4-D"};
      const Tensor& filter = *f;
      const int64_t m = s->d_o / s->d_i;
      if (m == 0) return {std::nullopt, "depthwise: output shallower than its input"};
      int64_t p_h = padding_before(s->h_i, filter.shape[1], p.stride_h, p.dilation_h, s->h_o, descending);
      int64_t p_w = padding_before(s->w_i, filter.shape[2], p.stride_w, p.dilation_w, s->w_o, descending);
      double a = static_cast<double>(p.stride_h * s->w_i) / static_cast<double>(s->w_o * m);
      double b = static_cast<double>(
          (s->w_o * p.stride_w - p_h * s->w_i - p.stride_h * s->w_i - p.stride_w - p_w + 1) * s->d_i);
      return from_line(a, b, *s, p.stride_h, p.stride_w, out, "depthwise line");
    }
    case OpKind::kAveragePool2D:
    case OpKind::kMaxPool2D: {
      auto s = nhwc_batch1(in, out);
      if (!s) return {std::nullopt, "pool: not batch-1 NHWC"};
      const auto& p = std::get<Pool2DParams>(op.params);
      int64_t p_h = padding_before(s->h_i, p.filter_h, p.stride_h, 1, s->h_o, descending);
      int64_t p_w = padding_before(s->w_i, p.filter_w, p.stride_w, 1, s->w_o, descending);
      double a = static_cast<double>(p.stride_h * s->w_i) / static_cast<double>(s->w_o);
      double b = static_cast<double>((s->w_o * p.stride_w - p_h * s->w_i - p.stride_h * s->w_i - p.stride_w - p_w) *
                                         s->d_i + 1);
      return from_line(a, b, *s, p.stride_h, p.stride_w, out, "pool line");
    }
    case OpKind::kFullyConnected:
      if (descending) break;
      return fully_connected_overlap(op, input, in, out);
    case OpKind::kBatchMatMul:
      if (descending) break;
      return batch_matmul_overlap(subgraph, op, input, in, out);
    case OpKind::kAdd:
    case OpKind::kSub:
    case OpKind::kMul:
    case OpKind::kRelu:
    case OpKind::kRelu6:
    case OpKind::kReluN1To1:
    case OpKind::kLogistic:
    case OpKind::kTanh:
    case OpKind::kHardSwish:
    case OpKind::kQuantize:
    case OpKind::kDequantize:
    // Element-wise math: same order, element k of each input read right before output k.
    case OpKind::kCast:
    case OpKind::kDiv:
    case OpKind::kMaximum:
    case OpKind::kMinimum:
    case OpKind::kLeakyRelu:
    case OpKind::kPrelu:
    case OpKind::kSqrt:
    case OpKind::kRsqrt:
    case OpKind::kExp:
    case OpKind::kLog:
    case OpKind::kPow:
    case OpKind::kSquaredDifference:
    case OpKind::kFloorDiv:
    case OpKind::kFloorMod:
    case OpKind::kSelectV2:
    // Comparisons of one shape: both elements k read, then bool k stored.
    case OpKind::kEqual:
    case OpKind::kNotEqual:
    case OpKind::kLess:
    case OpKind::kLessEqual:
    case OpKind::kGreater:
    case OpKind::kGreaterEqual: {
      if (descending) break;
      if (in.element_count != out.element_count) return {std::nullopt, "element-wise: shapes differ (broadcast)"};
      if (!same_shape(in, out)) return {std::nullopt, "element-wise: shapes differ"};
      // Output element k is written right after input element k is read.
      // A wider output element overlaps later input elements: with element
      // sizes e_o > e_i, O_s = e_o + (N - 1) * e_i.
      int64_t n = out.element_count;
      if (n == 0) return {0, "empty"};
      int64_t e_o = out.byte_size / n, e_i = in.byte_size / n;
      if (e_o <= e_i) return {out.byte_size, "in place"};
      return {e_o + (n - 1) * e_i, "in place, wider output"};
    }
    case OpKind::kExpandDims: {
      // Element by element in flat order, each load right before its store.
      if (descending) break;
      if (!is_data_input) return {std::nullopt, "expand dims: not the data input"};
      if (in.element_count != out.element_count || in.byte_size != out.byte_size) {
        return {std::nullopt, "expand dims: sizes differ"};
      }
      return {out.byte_size, "expand dims: element by element in place"};
    }
    case OpKind::kReshape:
    case OpKind::kSqueeze:
      // One memcpy of the whole tensor, whose order is unspecified: only
      // disjoint ranges are safe.
      if (descending) break;
      return {0, "copy: one memcpy of the whole tensor allows no overlap"};
    case OpKind::kConcatenation:
      if (descending) break;
      return concatenation_overlap(subgraph, op, input, out);
    case OpKind::kStridedSlice:
      // Row by row with memcpy when the inner stride is 1: 0 bounds it.
      if (descending) break;
      return {0, "strided slice: 0 bounds its rows' memcpy"};
    case OpKind::kMean:
    case OpKind::kSum:
      // Every TFLM path but one resets the whole output before reading the
      // input; 0 bounds that one too.
      if (descending) break;
      return {0, "reduction: the output is reset before the input is read"};
    default:
      return {std::nullopt, "no closed form for " + op.name()};
  }
  return {std::nullopt, "the kernel walks ascending only"};
}

}  // namespace dmo

// One-op graphs for every kernel dmo has, to compare the bottom-up O_s
// (a valgrind trace of the compiled kernel) with the algorithmic one:
// random shapes, types, quantization and parameters within what each
// kernel accepts, and ops taken from real models (windowed ops cropped
// spatially so a trace stays short; weights, channels and quantization kept).
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "dmo/error.h"
#include "dmo/model/lifetime.h"
#include "dmo/ops/padding.h"
#include "dmo/trace/graph_bundle.h"
#include "dmo/zoo/graph_builder.h"

namespace dmo::trace_configs {

struct KernelConfig {
  OpKind kind = OpKind::kAdd;
  std::string origin;  // "random" or the model file it came from
  Graph graph;         // one op: op 0
};

inline const std::vector<OpKind>& all_kernel_kinds() {
  static const std::vector<OpKind> kinds = {OpKind::kConv2D,
                                            OpKind::kDepthwiseConv2D,
                                            OpKind::kFullyConnected,
                                            OpKind::kAveragePool2D,
                                            OpKind::kMaxPool2D,
                                            OpKind::kAdd,
                                            OpKind::kSub,
                                            OpKind::kMul,
                                            OpKind::kSoftmax,
                                            OpKind::kLogistic,
                                            OpKind::kTanh,
                                            OpKind::kRelu,
                                            OpKind::kRelu6,
                                            OpKind::kReluN1To1,
                                            OpKind::kHardSwish,
                                            OpKind::kReshape,
                                            OpKind::kSqueeze,
                                            OpKind::kConcatenation,
                                            OpKind::kSplit,
                                            OpKind::kPad,
                                            OpKind::kPadV2,
                                            OpKind::kMean,
                                            OpKind::kStridedSlice,
                                            OpKind::kQuantize,
                                            OpKind::kDequantize,
                                            OpKind::kSvdf};
  return kinds;
}

class Rng {
 public:
  explicit Rng(uint32_t seed) : gen_(seed) {}
  int32_t uniform(int32_t lo, int32_t hi) { return std::uniform_int_distribution<int32_t>(lo, hi)(gen_); }
  float real(float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(gen_); }
  bool chance(double p) { return std::bernoulli_distribution(p)(gen_); }
  template <typename T>
  T pick(const std::vector<T>& options) {
    return options[static_cast<size_t>(uniform(0, static_cast<int32_t>(options.size()) - 1))];
  }
  std::vector<uint8_t> bytes(int64_t n) {
    std::vector<uint8_t> b(static_cast<size_t>(n));
    for (auto& x : b) x = static_cast<uint8_t>(uniform(0, 255));
    return b;
  }
  std::vector<float> floats(int64_t n) {
    std::vector<float> v(static_cast<size_t>(n));
    for (auto& x : v) x = real(-1.0f, 1.0f);
    return v;
  }
  std::vector<int32_t> int32s(int64_t n, int32_t lo, int32_t hi) {
    std::vector<int32_t> v(static_cast<size_t>(n));
    for (auto& x : v) x = uniform(lo, hi);
    return v;
  }

 private:
  std::mt19937 gen_;
};

inline Quantization per_tensor(float scale, int64_t zero_point) { return Quantization{{scale}, {zero_point}, 0}; }

inline int64_t elements_of(const Shape& shape) {
  int64_t n = 1;
  for (int32_t d : shape) n *= d;
  return n;
}

inline int64_t byte_width(DataType type) {
  switch (type) {
    case DataType::kInt8:
    case DataType::kUInt8:
      return 1;
    case DataType::kInt16:
      return 2;
    case DataType::kInt64:
      return 8;
    default:
      return 4;
  }
}

// Activation quantization of a type (none for float and int32).
inline Quantization activation_quant(DataType type, Rng& r) {
  switch (type) {
    case DataType::kInt8:
      return per_tensor(r.real(0.02f, 0.2f), r.uniform(-20, 20));
    case DataType::kUInt8:
      return per_tensor(r.real(0.02f, 0.2f), r.uniform(100, 150));
    case DataType::kInt16:
      return per_tensor(r.real(0.0005f, 0.005f), 0);
    default:
      return {};
  }
}

inline Shape random_shape(Rng& r, int32_t min_rank, int32_t max_rank, int64_t max_elements) {
  for (;;) {
    Shape s(static_cast<size_t>(r.uniform(min_rank, max_rank)));
    for (auto& d : s) d = r.uniform(1, 6);
    if (elements_of(s) <= max_elements) return s;
  }
}

// A one-op graph whose non-constant, non-variable inputs are graph inputs.
struct OneOp {
  explicit OneOp(const std::string& source) : b(source) {}
  int32_t input(const std::string& name, DataType type, const Shape& shape, Quantization q = {}) {
    int32_t t = b.add_tensor(name, type, shape, std::move(q));
    inputs.push_back(t);
    return t;
  }
  int32_t output(const std::string& name, DataType type, const Shape& shape, Quantization q = {}) {
    int32_t t = b.add_tensor(name, type, shape, std::move(q));
    outputs.push_back(t);
    return t;
  }
  Graph finish(OpKind kind, std::vector<int32_t> op_inputs, OpParams params = NoParams{}) {
    b.add_op(kind, std::move(op_inputs), outputs, std::move(params));
    b.set_inputs(inputs);
    b.set_outputs(outputs);
    Graph g = b.finish();
    for (int32_t t : variables) g.subgraphs[0].tensors[static_cast<size_t>(t)].is_variable = true;
    return g;
  }
  GraphBuilder b;
  std::vector<int32_t> inputs, outputs, variables;
};

inline Activation random_activation(Rng& r) {
  return r.pick<Activation>({Activation::kNone, Activation::kRelu, Activation::kRelu6});
}

// ------------------------------------------------------------ windowed ops

inline Graph random_conv(Rng& r, const std::string& source, bool depthwise) {
  for (;;) {
    const DataType type = r.pick<DataType>({DataType::kFloat32, DataType::kInt8, DataType::kUInt8});
    const int32_t n = r.chance(0.15) ? 2 : 1, h = r.uniform(1, 7), w = r.uniform(1, 7), ic = r.uniform(1, 4);
    const int32_t mult = depthwise ? r.uniform(1, 2) : 1;
    const int32_t oc = depthwise ? ic * mult : r.uniform(1, 5);
    const int32_t kh = r.uniform(1, 3), kw = r.uniform(1, 3), sh = r.uniform(1, 2), sw = r.uniform(1, 2);
    const int32_t dh = r.chance(0.2) ? 2 : 1, dw = r.chance(0.2) ? 2 : 1;
    const Padding padding = r.chance(0.5) ? Padding::kSame : Padding::kValid;
    const int32_t oh = window_output_size(padding, h, kh, sh, dh), ow = window_output_size(padding, w, kw, sw, dw);
    if (oh < 1 || ow < 1) continue;
    const int64_t work = int64_t{n} * oh * ow * oc * kh * kw * (depthwise ? 1 : ic);
    if (work > 2500) continue;
    OneOp m(source);
    const Quantization in_q = activation_quant(type, r), out_q = activation_quant(type, r);
    const int32_t input = m.input("input", type, {n, h, w, ic}, in_q);
    const Shape filter_shape = depthwise ? Shape{1, kh, kw, oc} : Shape{oc, kh, kw, ic};
    const int64_t filter_elements = elements_of(filter_shape);
    int32_t filter = 0, bias = kNoTensor;
    const bool with_bias = r.chance(0.8);
    if (type == DataType::kFloat32) {
      filter = m.b.add_constant_values<float>("filter", type, filter_shape, r.floats(filter_elements));
      if (with_bias) bias = m.b.add_constant_values<float>("bias", type, {oc}, r.floats(oc));
    } else if (type == DataType::kInt8) {
      Quantization fq;
      fq.quantized_dimension = depthwise ? 3 : 0;
      Quantization bq = fq;
      bq.quantized_dimension = 0;
      for (int32_t c = 0; c < oc; ++c) {
        fq.scale.push_back(r.real(0.005f, 0.05f));
        fq.zero_point.push_back(0);
        bq.scale.push_back(in_q.scale[0] * fq.scale.back());
        bq.zero_point.push_back(0);
      }
      std::vector<uint8_t> weights = r.bytes(filter_elements);
      for (auto& x : weights) x = x == 0x80 ? 0x81 : x;  // int8 weights avoid -128
      filter = m.b.add_constant("filter", type, filter_shape, weights, fq);
      if (with_bias)
        bias = m.b.add_constant_values<int32_t>("bias", DataType::kInt32, {oc}, r.int32s(oc, -500, 500), bq);
    } else {
      const Quantization fq = per_tensor(r.real(0.005f, 0.05f), r.uniform(100, 150));
      filter = m.b.add_constant("filter", type, filter_shape, r.bytes(filter_elements), fq);
      if (with_bias) {
        bias = m.b.add_constant_values<int32_t>("bias", DataType::kInt32, {oc}, r.int32s(oc, -500, 500),
                                                per_tensor(in_q.scale[0] * fq.scale[0], 0));
      }
    }
    m.output("output", type, {n, oh, ow, oc}, out_q);
    std::vector<int32_t> op_inputs = {input, filter};
    if (with_bias || r.chance(0.5)) op_inputs.push_back(bias);
    if (depthwise) {
      DepthwiseConv2DParams p{padding, sw, sh, mult, dw, dh, random_activation(r)};
      return m.finish(OpKind::kDepthwiseConv2D, op_inputs, p);
    }
    Conv2DParams p{padding, sw, sh, dw, dh, random_activation(r)};
    return m.finish(OpKind::kConv2D, op_inputs, p);
  }
}

inline Graph random_fully_connected(Rng& r, const std::string& source) {
  const DataType type = r.pick<DataType>({DataType::kFloat32, DataType::kInt8, DataType::kUInt8});
  const int32_t batches = r.uniform(1, 3), depth = r.uniform(1, 24), units = r.uniform(1, 10);
  OneOp m(source);
  const Quantization in_q = activation_quant(type, r), out_q = activation_quant(type, r);
  const Shape in_shape = r.chance(0.3) && depth % 2 == 0 ? Shape{batches, 2, depth / 2} : Shape{batches, depth};
  const int32_t input = m.input("input", type, in_shape, in_q);
  int32_t weights = 0, bias = kNoTensor;
  const bool with_bias = r.chance(0.7);
  if (type == DataType::kFloat32) {
    weights = m.b.add_constant_values<float>("weights", type, {units, depth}, r.floats(int64_t{units} * depth));
    if (with_bias) bias = m.b.add_constant_values<float>("bias", type, {units}, r.floats(units));
  } else {
    const Quantization wq = per_tensor(r.real(0.005f, 0.05f), type == DataType::kInt8 ? 0 : r.uniform(100, 150));
    std::vector<uint8_t> w = r.bytes(int64_t{units} * depth);
    if (type == DataType::kInt8) {
      for (auto& x : w) x = x == 0x80 ? 0x81 : x;
    }
    weights = m.b.add_constant("weights", type, {units, depth}, w, wq);
    if (with_bias) {
      bias = m.b.add_constant_values<int32_t>("bias", DataType::kInt32, {units}, r.int32s(units, -500, 500),
                                              per_tensor(in_q.scale[0] * wq.scale[0], 0));
    }
  }
  m.output("output", type, {batches, units}, out_q);
  std::vector<int32_t> op_inputs = {input, weights};
  if (with_bias) op_inputs.push_back(bias);
  FullyConnectedParams p;
  p.activation = random_activation(r);
  return m.finish(OpKind::kFullyConnected, op_inputs, p);
}

inline Graph random_pool(Rng& r, const std::string& source, OpKind kind) {
  for (;;) {
    const DataType type = r.pick<DataType>({DataType::kFloat32, DataType::kInt8, DataType::kUInt8, DataType::kInt16});
    const int32_t n = r.chance(0.15) ? 2 : 1, h = r.uniform(1, 8), w = r.uniform(1, 8), c = r.uniform(1, 4);
    const int32_t fh = r.uniform(1, 3), fw = r.uniform(1, 3), sh = r.uniform(1, 2), sw = r.uniform(1, 2);
    const Padding padding = r.chance(0.5) ? Padding::kSame : Padding::kValid;
    const int32_t oh = window_output_size(padding, h, fh, sh, 1), ow = window_output_size(padding, w, fw, sw, 1);
    if (oh < 1 || ow < 1 || int64_t{n} * oh * ow * c * fh * fw > 2500) continue;
    OneOp m(source);
    const Quantization q = activation_quant(type, r);
    const int32_t input = m.input("input", type, {n, h, w, c}, q);
    m.output("output", type, {n, oh, ow, c}, q);
    Pool2DParams p{padding, sw, sh, fw, fh, random_activation(r)};
    return m.finish(kind, {input}, p);
  }
}

// ------------------------------------------------------------ element-wise

inline Graph random_binary(Rng& r, const std::string& source, OpKind kind) {
  const DataType type = r.pick<DataType>({DataType::kFloat32, DataType::kInt8, DataType::kInt8, DataType::kInt32});
  const Shape out_shape = random_shape(r, 1, 4, 200);
  Shape a = out_shape, b = out_shape;
  if (r.chance(0.4)) {
    // Broadcast: some axes of one operand are 1 (or it has fewer axes).
    Shape& small = r.chance(0.5) ? a : b;
    for (auto& d : small) d = r.chance(0.5) ? 1 : d;
    if (r.chance(0.3) && small.size() > 1) small.erase(small.begin());
  }
  OneOp m(source);
  const int32_t x = m.input("x", type, a, activation_quant(type, r));
  const int32_t y = m.input("y", type, b, activation_quant(type, r));
  m.output("output", type, out_shape, activation_quant(type, r));
  return m.finish(kind, {x, y}, ElementwiseParams{type == DataType::kInt32 ? Activation::kNone : random_activation(r)});
}

// Unary ops whose output has the input's shape; `out_quant` chooses the
// output quantization a type needs.
inline Graph random_unary(Rng& r, const std::string& source, OpKind kind, const std::vector<DataType>& types,
                          const std::function<Quantization(DataType, const Quantization&)>& out_quant,
                          OpParams params = NoParams{}) {
  const DataType type = r.pick(types);
  const Shape shape = random_shape(r, 1, 4, 300);
  OneOp m(source);
  const Quantization in_q = activation_quant(type, r);
  const int32_t input = m.input("input", type, shape, in_q);
  m.output("output", type, shape, out_quant ? out_quant(type, in_q) : activation_quant(type, r));
  return m.finish(kind, {input}, std::move(params));
}

inline Graph random_softmax(Rng& r, const std::string& source) {
  const DataType type = r.pick<DataType>({DataType::kFloat32, DataType::kInt8, DataType::kUInt8});
  const Shape shape = r.chance(0.5) ? Shape{r.uniform(1, 3), r.uniform(1, 20)} : random_shape(r, 1, 4, 200);
  OneOp m(source);
  const Quantization in_q = type == DataType::kFloat32
                                ? Quantization{}
                                : per_tensor(r.real(0.05f, 0.2f), type == DataType::kInt8 ? r.uniform(-20, 20) : 128);
  const int32_t input = m.input("input", type, shape, in_q);
  Quantization out_q;
  if (type == DataType::kInt8) out_q = per_tensor(1.0f / 256, -128);
  if (type == DataType::kUInt8) out_q = per_tensor(1.0f / 256, 0);
  m.output("output", type, shape, out_q);
  return m.finish(OpKind::kSoftmax, {input}, SoftmaxParams{r.chance(0.7) ? 1.0f : 0.5f});
}

inline Graph random_conversion(Rng& r, const std::string& source, bool quantize) {
  struct Pair {
    DataType in, out;
  };
  const Pair pair = quantize ? r.pick<Pair>({{DataType::kFloat32, DataType::kInt8},
                                             {DataType::kFloat32, DataType::kUInt8},
                                             {DataType::kFloat32, DataType::kInt16},
                                             {DataType::kInt8, DataType::kInt8},
                                             {DataType::kUInt8, DataType::kInt8},
                                             {DataType::kInt16, DataType::kInt8}})
                             : r.pick<Pair>({{DataType::kInt8, DataType::kFloat32},
                                             {DataType::kUInt8, DataType::kFloat32},
                                             {DataType::kInt16, DataType::kFloat32}});
  const Shape shape = random_shape(r, 1, 4, 300);
  OneOp m(source);
  const int32_t input = m.input("input", pair.in, shape, activation_quant(pair.in, r));
  m.output("output", pair.out, shape, activation_quant(pair.out, r));
  return m.finish(quantize ? OpKind::kQuantize : OpKind::kDequantize, {input});
}

// ------------------------------------------------------------ shape ops

inline DataType random_copy_type(Rng& r) {
  return r.pick<DataType>({DataType::kFloat32, DataType::kInt8, DataType::kUInt8, DataType::kInt16, DataType::kInt32});
}

inline Graph random_reshape(Rng& r, const std::string& source, bool squeeze) {
  const DataType type = random_copy_type(r);
  const Quantization q = activation_quant(type, r);
  Shape in = random_shape(r, 1, 4, 300), out;
  if (squeeze) {
    // Insert ones to squeeze away.
    for (int i = r.uniform(1, 2); i > 0; --i) in.insert(in.begin() + r.uniform(0, static_cast<int32_t>(in.size())), 1);
    for (int32_t d : in) {
      if (d != 1) out.push_back(d);
    }
  } else {
    // Regroup the same elements: a random factorisation.
    int64_t left = elements_of(in);
    while (left > 1) {
      int32_t f = 1;
      for (int32_t d = 2; d <= left; ++d) {
        if (left % d == 0 && (r.chance(0.5) || d == left)) {
          f = d;
          break;
        }
      }
      out.push_back(f);
      left /= f;
    }
    if (out.empty()) out.push_back(1);
  }
  OneOp m(source);
  const int32_t input = m.input("input", type, in, q);
  m.output("output", type, out, q);
  if (squeeze) return m.finish(OpKind::kSqueeze, {input}, SqueezeParams{});
  if (r.chance(0.5)) {
    const int32_t shape = m.b.add_constant_values<int32_t>(
        "shape", DataType::kInt32, {static_cast<int32_t>(out.size())}, std::vector<int32_t>(out.begin(), out.end()));
    return m.finish(OpKind::kReshape, {input, shape}, ReshapeParams{});
  }
  ReshapeParams p;
  p.new_shape = std::vector<int32_t>(out.begin(), out.end());
  p.has_new_shape = true;
  return m.finish(OpKind::kReshape, {input}, p);
}

inline Graph random_concatenation(Rng& r, const std::string& source) {
  const DataType type = random_copy_type(r);
  const Quantization q = activation_quant(type, r);
  const Shape base = random_shape(r, 1, 4, 120);
  const int32_t axis = r.uniform(0, static_cast<int32_t>(base.size()) - 1);
  const int count = r.uniform(2, 3);
  OneOp m(source);
  std::vector<int32_t> op_inputs;
  Shape out = base;
  out[static_cast<size_t>(axis)] = 0;
  for (int i = 0; i < count; ++i) {
    Shape s = base;
    s[static_cast<size_t>(axis)] = r.uniform(1, 4);
    out[static_cast<size_t>(axis)] += s[static_cast<size_t>(axis)];
    op_inputs.push_back(m.input(fmt::format("input{}", i), type, s, q));
  }
  m.output("output", type, out, q);
  return m.finish(
      OpKind::kConcatenation, op_inputs,
      ConcatenationParams{r.chance(0.3) ? axis - static_cast<int32_t>(base.size()) : axis, Activation::kNone});
}

inline Graph random_split(Rng& r, const std::string& source) {
  const DataType type = random_copy_type(r);
  const Quantization q = activation_quant(type, r);
  Shape in = random_shape(r, 1, 4, 150);
  const int32_t axis = r.uniform(0, static_cast<int32_t>(in.size()) - 1);
  const int32_t splits = r.uniform(1, 3);
  in[static_cast<size_t>(axis)] = splits * r.uniform(1, 3);
  OneOp m(source);
  const int32_t axis_tensor = m.b.add_constant_values<int32_t>("axis", DataType::kInt32, {1}, {axis});
  const int32_t input = m.input("input", type, in, q);
  Shape out = in;
  out[static_cast<size_t>(axis)] /= splits;
  for (int32_t i = 0; i < splits; ++i) m.output(fmt::format("output{}", i), type, out, q);
  return m.finish(OpKind::kSplit, {axis_tensor, input}, SplitParams{splits});
}

inline Graph random_pad(Rng& r, const std::string& source, bool v2) {
  const DataType type = r.pick<DataType>({DataType::kFloat32, DataType::kInt8, DataType::kUInt8});
  const Quantization q = activation_quant(type, r);
  const Shape in = random_shape(r, 1, 4, 100);
  Shape out = in;
  std::vector<int32_t> paddings;
  for (size_t d = 0; d < in.size(); ++d) {
    int32_t before = r.uniform(0, 2), after = r.uniform(0, 2);
    paddings.push_back(before);
    paddings.push_back(after);
    out[d] += before + after;
  }
  OneOp m(source);
  const int32_t input = m.input("input", type, in, q);
  const int32_t pads =
      m.b.add_constant_values<int32_t>("paddings", DataType::kInt32, {static_cast<int32_t>(in.size()), 2}, paddings);
  m.output("output", type, out, q);
  std::vector<int32_t> op_inputs = {input, pads};
  if (v2) {
    if (type == DataType::kFloat32) {
      op_inputs.push_back(m.b.add_constant_values<float>("value", type, {1}, {r.real(-1, 1)}));
    } else {
      op_inputs.push_back(m.b.add_constant("value", type, {1}, r.bytes(1), q));
    }
  }
  return m.finish(v2 ? OpKind::kPadV2 : OpKind::kPad, op_inputs);
}

inline Graph random_mean(Rng& r, const std::string& source) {
  const DataType type = r.pick<DataType>({DataType::kFloat32, DataType::kInt8, DataType::kUInt8, DataType::kInt16});
  const Shape in = random_shape(r, 2, 4, 200);
  const int32_t rank = static_cast<int32_t>(in.size());
  std::vector<int32_t> axes = {r.uniform(0, rank - 1)};
  if (r.chance(0.5)) {
    int32_t second = r.uniform(0, rank - 1);
    if (second != axes[0]) axes.push_back(second);
  }
  const bool keep_dims = r.chance(0.5);
  Shape out;
  for (int32_t d = 0; d < rank; ++d) {
    bool reduced = std::find(axes.begin(), axes.end(), d) != axes.end();
    if (!reduced)
      out.push_back(in[static_cast<size_t>(d)]);
    else if (keep_dims)
      out.push_back(1);
  }
  if (r.chance(0.3)) axes[0] -= rank;  // a negative axis
  OneOp m(source);
  const Quantization in_q = activation_quant(type, r);
  const int32_t input = m.input("input", type, in, in_q);
  const int32_t axis =
      m.b.add_constant_values<int32_t>("axis", DataType::kInt32, {static_cast<int32_t>(axes.size())}, axes);
  m.output("output", type, out, type == DataType::kInt16 ? in_q : activation_quant(type, r));
  return m.finish(OpKind::kMean, {input, axis}, ReducerParams{keep_dims});
}

inline Graph random_strided_slice(Rng& r, const std::string& source) {
  const DataType type = random_copy_type(r);
  const Quantization q = activation_quant(type, r);
  const Shape in = random_shape(r, 1, 4, 200);
  const int32_t rank = static_cast<int32_t>(in.size());
  std::vector<int32_t> begin, end, strides;
  StridedSliceParams p;
  Shape out;
  for (int32_t a = 0; a < rank; ++a) {
    const int32_t size = in[static_cast<size_t>(a)];
    if (r.chance(0.15)) {  // take one element and drop the axis
      begin.push_back(r.uniform(0, size - 1));
      end.push_back(begin.back() + 1);
      strides.push_back(1);
      p.shrink_axis_mask |= 1 << a;
      continue;
    }
    if (r.chance(0.3)) {  // walk backwards from `begin` to the start
      const int32_t b = r.uniform(0, size - 1), step = r.uniform(1, 2);
      begin.push_back(b);
      end.push_back(0);
      strides.push_back(-step);
      p.end_mask |= 1 << a;
      out.push_back(b / step + 1);
      continue;
    }
    int32_t b = r.uniform(0, size - 1), e = r.uniform(b + 1, size);
    const int32_t step = r.uniform(1, 2);
    int32_t begin_value = b, end_value = e;
    if (r.chance(0.2)) {  // begin_mask: start at 0 whatever begin says
      p.begin_mask |= 1 << a;
      b = 0;
      begin_value = r.uniform(0, size - 1);
    }
    if (r.chance(0.2)) {  // end_mask: run to the end whatever end says
      p.end_mask |= 1 << a;
      e = size;
      end_value = r.uniform(0, size);
    } else if (e < size && r.chance(0.3)) {
      end_value = e - size;  // counted from the end
    }
    begin.push_back(begin_value);
    end.push_back(end_value);
    strides.push_back(step);
    out.push_back((e - b + step - 1) / step);
  }
  OneOp m(source);
  const int32_t input = m.input("input", type, in, q);
  auto vec = [&](const char* name, const std::vector<int32_t>& v) {
    return m.b.add_constant_values<int32_t>(name, DataType::kInt32, {rank}, v);
  };
  const int32_t tb = vec("begin", begin), te = vec("end", end), ts = vec("strides", strides);
  m.output("output", type, out, q);
  return m.finish(OpKind::kStridedSlice, {input, tb, te, ts}, p);
}

inline Graph random_svdf(Rng& r, const std::string& source) {
  const bool float_svdf = r.chance(0.5);
  const int32_t batch = r.uniform(1, 2), input_size = r.uniform(1, 8), rank = r.uniform(1, 2), units = r.uniform(1, 4),
                memory = r.uniform(1, 4);
  const int32_t filters = units * rank;
  OneOp m(source);
  SvdfParams p;
  p.rank = rank;
  p.activation = r.chance(0.5) ? Activation::kRelu : Activation::kNone;
  const bool with_bias = r.chance(0.7);
  if (float_svdf) {
    const DataType f = DataType::kFloat32;
    const int32_t input = m.input("input", f, {batch, input_size});
    const int32_t wf = m.b.add_constant_values<float>("weights_feature", f, {filters, input_size},
                                                      r.floats(int64_t{filters} * input_size));
    const int32_t wt =
        m.b.add_constant_values<float>("weights_time", f, {filters, memory}, r.floats(int64_t{filters} * memory));
    const int32_t bias = with_bias ? m.b.add_constant_values<float>("bias", f, {units}, r.floats(units)) : kNoTensor;
    const int32_t state = m.b.add_tensor("state", f, {batch, memory * filters});
    m.variables.push_back(state);
    m.output("output", f, {batch, units});
    return m.finish(OpKind::kSvdf, {input, wf, wt, bias, state}, p);
  }
  const DataType time_type = r.chance(0.5) ? DataType::kInt16 : DataType::kInt8;
  const Quantization time_q = per_tensor(r.real(0.001f, 0.01f), 0), state_q = per_tensor(r.real(0.01f, 0.05f), 0);
  const int32_t input =
      m.input("input", DataType::kInt8, {batch, input_size}, per_tensor(r.real(0.02f, 0.1f), r.uniform(-10, 10)));
  const int32_t wf = m.b.add_constant("weights_feature", DataType::kInt8, {filters, input_size},
                                      r.bytes(int64_t{filters} * input_size), per_tensor(r.real(0.005f, 0.02f), 0));
  const int32_t wt = m.b.add_constant("weights_time", time_type, {filters, memory},
                                      r.bytes(int64_t{filters} * memory * byte_width(time_type)), time_q);
  const int32_t bias =
      with_bias ? m.b.add_constant_values<int32_t>("bias", DataType::kInt32, {units}, r.int32s(units, -500, 500),
                                                   per_tensor(state_q.scale[0] * time_q.scale[0], 0))
                : kNoTensor;
  const int32_t state = m.b.add_tensor("state", time_type, {batch, memory * filters}, state_q);
  m.variables.push_back(state);
  m.output("output", DataType::kInt8, {batch, units}, per_tensor(r.real(0.02f, 0.1f), r.uniform(-10, 10)));
  return m.finish(OpKind::kSvdf, {input, wf, wt, bias, state}, p);
}

// ------------------------------------------------------------ dispatch

inline Graph random_graph(OpKind kind, Rng& r, const std::string& source) {
  const std::vector<DataType> fiu = {DataType::kFloat32, DataType::kInt8, DataType::kUInt8};
  const std::vector<DataType> fiu16 = {DataType::kFloat32, DataType::kInt8, DataType::kUInt8, DataType::kInt16};
  auto same_quant = [](DataType, const Quantization& q) { return q; };
  switch (kind) {
    case OpKind::kConv2D:
      return random_conv(r, source, false);
    case OpKind::kDepthwiseConv2D:
      return random_conv(r, source, true);
    case OpKind::kFullyConnected:
      return random_fully_connected(r, source);
    case OpKind::kAveragePool2D:
    case OpKind::kMaxPool2D:
      return random_pool(r, source, kind);
    case OpKind::kAdd:
    case OpKind::kSub:
    case OpKind::kMul:
      return random_binary(r, source, kind);
    case OpKind::kSoftmax:
      return random_softmax(r, source);
    case OpKind::kLogistic:
      return random_unary(r, source, kind, fiu, [](DataType t, const Quantization&) {
        return t == DataType::kInt8    ? per_tensor(1.0f / 256, -128)
               : t == DataType::kUInt8 ? per_tensor(1.0f / 256, 0)
                                       : Quantization{};
      });
    case OpKind::kTanh:
      return random_unary(r, source, kind, fiu, [](DataType t, const Quantization&) {
        return t == DataType::kInt8    ? per_tensor(1.0f / 128, 0)
               : t == DataType::kUInt8 ? per_tensor(1.0f / 128, 128)
                                       : Quantization{};
      });
    case OpKind::kRelu:
    case OpKind::kRelu6:
      return random_unary(r, source, kind, fiu16, same_quant);
    case OpKind::kReluN1To1:
      return random_unary(r, source, kind, fiu, same_quant);
    case OpKind::kHardSwish:
      return random_unary(r, source, kind, fiu, [&r](DataType t, const Quantization& in) {
        return t == DataType::kFloat32 ? Quantization{}
                                       : per_tensor(in.scale[0] * r.real(0.5f, 1.5f), in.zero_point[0]);
      });
    case OpKind::kReshape:
      return random_reshape(r, source, false);
    case OpKind::kSqueeze:
      return random_reshape(r, source, true);
    case OpKind::kConcatenation:
      return random_concatenation(r, source);
    case OpKind::kSplit:
      return random_split(r, source);
    case OpKind::kPad:
      return random_pad(r, source, false);
    case OpKind::kPadV2:
      return random_pad(r, source, true);
    case OpKind::kMean:
      return random_mean(r, source);
    case OpKind::kStridedSlice:
      return random_strided_slice(r, source);
    case OpKind::kQuantize:
      return random_conversion(r, source, true);
    case OpKind::kDequantize:
      return random_conversion(r, source, false);
    case OpKind::kSvdf:
      return random_svdf(r, source);
    default:
      throw Error(fmt::format("no random configuration for builtin code {}", static_cast<int>(kind)));
  }
}

inline std::vector<KernelConfig> random_configs(OpKind kind, int count, uint32_t seed) {
  Rng r(seed * 7919u + static_cast<uint32_t>(kind));
  std::vector<KernelConfig> configs;
  for (int i = 0; i < count; ++i) {
    const std::string source = fmt::format("{}/random{}", builtin_op_name(static_cast<int32_t>(kind)), i);
    configs.push_back({kind, "random", random_graph(kind, r, source)});
  }
  return configs;
}

// ------------------------------------------------------------ real models

// Op `op` of `graph` alone, with only the tensors it uses (renumbered); its
// activation inputs become graph inputs.
inline Graph single_op_graph(const Graph& graph, size_t op, const std::string& source) {
  const Subgraph& from = graph.main();
  const Op& o = from.ops[op];
  Subgraph sub;
  sub.name = from.name;
  std::map<int32_t, int32_t> renumbered;
  auto take = [&](int32_t t) {
    if (t == kNoTensor) return kNoTensor;
    auto [it, added] = renumbered.emplace(t, static_cast<int32_t>(sub.tensors.size()));
    if (added) sub.tensors.push_back(from.tensors[static_cast<size_t>(t)]);
    return it->second;
  };
  Op copy = o;
  for (auto& t : copy.inputs) t = take(t);
  for (auto& t : copy.outputs) t = take(t);
  for (int32_t t : copy.inputs) {
    if (t == kNoTensor) continue;
    const Tensor& tensor = sub.tensors[static_cast<size_t>(t)];
    if (tensor.is_constant || tensor.is_variable) continue;
    if (std::find(sub.inputs.begin(), sub.inputs.end(), t) == sub.inputs.end()) sub.inputs.push_back(t);
  }
  sub.outputs = copy.outputs;
  sub.ops = {copy};
  Graph g;
  g.source = source;
  g.version = graph.version;
  g.subgraphs = {sub};
  return g;
}

// Loads and stores a kernel makes, roughly (for keeping traces short).
inline int64_t estimated_work(const Graph& g) {
  const Subgraph& sg = g.main();
  const Op& o = sg.ops[0];
  auto tensor = [&](int32_t t) -> const Tensor& { return sg.tensors[static_cast<size_t>(t)]; };
  const Tensor& out = tensor(o.outputs[0]);
  if (o.is(OpKind::kConv2D)) {
    const Tensor& f = tensor(o.inputs[1]);
    return out.element_count * f.shape[1] * f.shape[2] * f.shape[3];
  }
  if (o.is(OpKind::kDepthwiseConv2D)) {
    const Tensor& f = tensor(o.inputs[1]);
    return out.element_count * f.shape[1] * f.shape[2];
  }
  if (o.is(OpKind::kFullyConnected)) return out.element_count * tensor(o.inputs[1]).shape.back();
  if (const auto* p = std::get_if<Pool2DParams>(&o.params)) return out.element_count * p->filter_w * p->filter_h;
  int64_t total = 0;
  for (int32_t t : o.inputs) {
    if (t != kNoTensor) total += tensor(t).element_count;
  }
  for (int32_t t : o.outputs) total += tensor(t).element_count;
  return o.is(OpKind::kSoftmax) ? 3 * total : total;
}

// Crops a windowed op's input to at most `size` x `size` (its output follows).
inline bool crop_window_op(Graph& g, int32_t size) {
  Subgraph& sg = g.subgraphs[0];
  Op& o = sg.ops[0];
  Tensor& in = sg.tensors[static_cast<size_t>(o.inputs[0])];
  Tensor& out = sg.tensors[static_cast<size_t>(o.outputs[0])];
  if (in.shape.size() != 4 || out.shape.size() != 4) return false;
  int32_t fh = 1, fw = 1, sh = 1, sw = 1, dh = 1, dw = 1;
  Padding padding = Padding::kValid;
  if (const auto* p = std::get_if<Conv2DParams>(&o.params)) {
    const Tensor& f = sg.tensors[static_cast<size_t>(o.inputs[1])];
    fh = f.shape[1], fw = f.shape[2], sh = p->stride_h, sw = p->stride_w, dh = p->dilation_h, dw = p->dilation_w;
    padding = p->padding;
  } else if (const auto* p = std::get_if<DepthwiseConv2DParams>(&o.params)) {
    const Tensor& f = sg.tensors[static_cast<size_t>(o.inputs[1])];
    fh = f.shape[1], fw = f.shape[2], sh = p->stride_h, sw = p->stride_w, dh = p->dilation_h, dw = p->dilation_w;
    padding = p->padding;
  } else if (const auto* p = std::get_if<Pool2DParams>(&o.params)) {
    fh = p->filter_h, fw = p->filter_w, sh = p->stride_h, sw = p->stride_w;
    padding = p->padding;
  } else {
    return false;
  }
  const int32_t h = std::min(in.shape[1], std::max(size, dilated_filter_size(fh, dh)));
  const int32_t w = std::min(in.shape[2], std::max(size, dilated_filter_size(fw, dw)));
  const int32_t oh = window_output_size(padding, h, fh, sh, dh), ow = window_output_size(padding, w, fw, sw, dw);
  if (oh < 1 || ow < 1) return false;
  in.shape[1] = h, in.shape[2] = w;
  in.shape[0] = out.shape[0] = 1;
  out.shape[1] = oh, out.shape[2] = ow;
  for (Tensor* t : {&in, &out}) {
    t->element_count = elements_of(t->shape);
    t->byte_size = t->element_count * byte_width(t->type);
  }
  return true;
}

// Distinct ops of `kind` from the models, at most `per_kind`, each made to
// cost at most `max_work`.
inline std::vector<KernelConfig> real_model_configs(const std::vector<std::pair<std::string, Graph>>& models,
                                                    OpKind kind, size_t per_kind, int64_t max_work) {
  std::vector<KernelConfig> configs;
  std::vector<std::vector<uint8_t>> seen;
  for (const auto& [name, graph] : models) {
    const Subgraph& sg = graph.main();
    for (size_t op = 0; op < sg.ops.size() && configs.size() < per_kind; ++op) {
      if (!sg.ops[op].is(kind)) continue;
      const std::string source = fmt::format("{}/{}#{}", builtin_op_name(static_cast<int32_t>(kind)), name, op);
      Graph g = single_op_graph(graph, op, source);
      for (int32_t size = 8; size >= 1 && estimated_work(g) > max_work; size /= 2) {
        if (!crop_window_op(g, size)) break;
      }
      if (estimated_work(g) > max_work) continue;
      // The same op shape, parameters and quantization only once.
      Graph key = g;
      key.source.clear();
      for (auto& t : key.subgraphs[0].tensors) {
        t.data.clear();
        t.name.clear();
      }
      std::vector<uint8_t> bytes = encode_graph_bundle({{key, {0}}});
      if (std::find(seen.begin(), seen.end(), bytes) != seen.end()) continue;
      seen.push_back(bytes);
      configs.push_back({kind, name, std::move(g)});
    }
  }
  return configs;
}

}  // namespace dmo::trace_configs

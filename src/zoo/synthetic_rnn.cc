#include "dmo/zoo/synthetic_rnn.h"

#include <fmt/format.h>

#include <deque>
#include <vector>

#include "dmo/error.h"
#include "dmo/zoo/graph_builder.h"
#include "xorshift32.h"

namespace dmo {
namespace {

// Adds the cell's ops until the graph has the requested count.
class RnnBuilder {
 public:
  explicit RnnBuilder(const SyntheticRnnConfig& config)
      : builder_(synthetic_rnn_name(config)),
        random_(config.seed * 2654435761u + 0x9e3779b9u),  // spread small seeds apart
        op_count_(config.op_count) {
    input_ = 32 * random_.integer(2, 4);  // 64..128
    const int32_t layers = random_.integer(2, 3);
    for (int32_t l = 0; l < layers; ++l) {
      Layer layer;
      layer.width = 32 * random_.integer(2, 8);  // 64..256
      layers_.push_back(layer);
    }
  }

  Graph build() {
    std::vector<int32_t> inputs{vector("x0", input_)};
    int32_t below = input_;
    for (size_t l = 0; l < layers_.size(); ++l) {
      Layer& layer = layers_[l];
      layer.h = vector(fmt::format("l{}/h0", l), layer.width);
      layer.c = vector(fmt::format("l{}/c0", l), layer.width);
      inputs.push_back(layer.h);
      inputs.push_back(layer.c);
      for (const char* gate : {"i", "f", "g", "o"}) {
        layer.gates.push_back({weights(fmt::format("l{}/w_x{}", l, gate), layer.width, below),
                               weights(fmt::format("l{}/w_h{}", l, gate), layer.width, layer.width),
                               bias(fmt::format("l{}/b_{}", l, gate), layer.width)});
      }
      layer.peephole = builder_.add_constant_values(fmt::format("l{}/peephole_o", l), DataType::kFloat32,
                                                    {1, layer.width}, values(layer.width, 0.5f));
      below = layer.width;
    }
    builder_.set_inputs(inputs);
    projection_weights_ = weights("w_proj", input_, below);
    projection_bias_ = bias("b_proj", input_);
    hidden_history_.push_back(layers_.back().h);
    int32_t x = inputs[0];
    for (int32_t t = 0; !full(); ++t) x = step(t, x);
    builder_.set_outputs({last_});
    return builder_.finish();
  }

 private:
  struct GateWeights {
    int32_t from_input, from_hidden, bias;
  };
  struct Layer {
    int32_t width = 0;
    std::vector<GateWeights> gates;
    int32_t peephole = -1;
    int32_t h = -1, c = -1;  // the state after the last step
  };

  bool full() const { return ops_ >= op_count_; }

  std::vector<float> values(int64_t count, float limit) {
    std::vector<float> v(static_cast<size_t>(count));
    for (float& x : v) x = random_.uniform(limit);
    return v;
  }
  int32_t vector(const std::string& name, int32_t width) {
    return builder_.add_tensor(name, DataType::kFloat32, {1, width});
  }
  int32_t weights(const std::string& name, int32_t out, int32_t in) {
    return builder_.add_constant_values(name, DataType::kFloat32, {out, in}, values(int64_t{out} * in, 0.1f));
  }
  int32_t bias(const std::string& name, int32_t width) {
    return builder_.add_constant_values(name, DataType::kFloat32, {width}, values(width, 0.05f));
  }

  // One op producing a new vector; nothing once the graph is full.
  int32_t op(OpKind kind, std::vector<int32_t> inputs, const std::string& name, int32_t width, OpParams params) {
    if (full()) return -1;
    const int32_t output = vector(name, width);
    builder_.add_op(kind, std::move(inputs), {output}, std::move(params));
    ++ops_;
    last_ = output;
    return output;
  }
  int32_t fc(int32_t input, int32_t w, int32_t b, const std::string& name, int32_t width) {
    return op(OpKind::kFullyConnected, {input, w, b}, name, width, FullyConnectedParams{});
  }
  int32_t binary(OpKind kind, int32_t a, int32_t b, const std::string& name, int32_t width) {
    return op(kind, {a, b}, name, width, ElementwiseParams{});
  }
  int32_t unary(OpKind kind, int32_t a, const std::string& name, int32_t width) {
    return op(kind, {a}, name, width, NoParams{});
  }

  // One layer's cell, as converters emit it: the eight gate products first
  // (so they all live until their sums), then gates i, f, g, the cell
  // state, gate o with a peephole on the new cell state, the hidden state.
  // 23 ops: 8 FULLY_CONNECTED, 6 ADD, 4 MUL, 3 LOGISTIC, 2 TANH.
  int32_t cell(const std::string& at, Layer& layer, int32_t x) {
    const int32_t w = layer.width;
    int32_t from_x[4], from_h[4];
    const char* names[4] = {"i", "f", "g", "o"};
    for (size_t g = 0; g < 4; ++g) {
      const GateWeights& gw = layer.gates[g];
      from_x[g] = fc(x, gw.from_input, gw.bias, fmt::format("{}/{}_x", at, names[g]), w);
      from_h[g] = fc(layer.h, gw.from_hidden, gw.bias, fmt::format("{}/{}_h", at, names[g]), w);
    }
    auto sum = [&](size_t g) { return binary(OpKind::kAdd, from_x[g], from_h[g], fmt::format("{}/{}_sum", at, names[g]), w); };
    const int32_t i = unary(OpKind::kLogistic, sum(0), at + "/i", w);
    const int32_t f = unary(OpKind::kLogistic, sum(1), at + "/f", w);
    const int32_t g = unary(OpKind::kTanh, sum(2), at + "/g", w);
    const int32_t kept = binary(OpKind::kMul, f, layer.c, at + "/kept", w);
    const int32_t added = binary(OpKind::kMul, i, g, at + "/added", w);
    layer.c = binary(OpKind::kAdd, kept, added, at + "/c", w);
    const int32_t peep = binary(OpKind::kMul, layer.c, layer.peephole, at + "/peep", w);
    const int32_t o = unary(OpKind::kLogistic, binary(OpKind::kAdd, sum(3), peep, at + "/o_peep", w), at + "/o", w);
    const int32_t squashed = unary(OpKind::kTanh, layer.c, at + "/c_tanh", w);
    layer.h = binary(OpKind::kMul, o, squashed, at + "/h", w);
    return layer.h;
  }

  // Every layer's cell, then the next step's input projected from the top
  // layer's hidden state of up to 5 steps back (those states live on).
  int32_t step(int32_t t, int32_t x) {
    for (size_t l = 0; l < layers_.size(); ++l) x = cell(fmt::format("s{}/l{}", t, l), layers_[l], x);
    hidden_history_.push_back(x);
    if (hidden_history_.size() > 6) hidden_history_.pop_front();
    const int32_t back = random_.integer(0, static_cast<int32_t>(hidden_history_.size()) - 1);
    const int32_t source = hidden_history_[hidden_history_.size() - 1 - static_cast<size_t>(back)];
    return fc(source, projection_weights_, projection_bias_, fmt::format("s{}/x_next", t), input_);
  }

  GraphBuilder builder_;
  Xorshift32 random_;
  int32_t op_count_;
  int32_t ops_ = 0;
  int32_t input_ = 0;
  std::vector<Layer> layers_;
  int32_t projection_weights_ = -1, projection_bias_ = -1;
  std::deque<int32_t> hidden_history_;
  int32_t last_ = 0;
};

}  // namespace

std::string synthetic_rnn_name(const SyntheticRnnConfig& config) {
  if (config.seed == 1) return fmt::format("synthetic_rnn_{}", config.op_count);
  return fmt::format("synthetic_rnn_{}_seed{}", config.op_count, config.seed);
}

Graph build_synthetic_rnn(const SyntheticRnnConfig& config) {
  if (config.op_count < 1 || config.op_count > kMaxSyntheticRnnOps) {
    throw Error(fmt::format("the op count must be in [1, {}], not {}", kMaxSyntheticRnnOps, config.op_count));
  }
  return RnnBuilder(config).build();
}

}  // namespace dmo

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "dmo/error.h"
#include "dmo/model/graph.h"
#include "dmo/zoo/synthetic_rnn.h"
#include "dmo/zoo/zoo.h"

namespace dmo {
namespace {

std::map<OpKind, int> op_mix(const Graph& graph) {
  std::map<OpKind, int> mix;
  for (const Op& op : graph.main().ops) ++mix[static_cast<OpKind>(op.builtin_code)];
  return mix;
}

TEST(SyntheticRnn, HasExactlyTheOpCountAndTheRecurrentMix) {
  for (int32_t count : {1, 23, 24, 25, 1000, 2338}) {
    SCOPED_TRACE(count);
    const Graph graph = build_synthetic_rnn({count, 1});
    EXPECT_EQ(static_cast<int32_t>(graph.main().ops.size()), count);
  }
  // A step is 2 or 3 cells of 23 ops (8 FULLY_CONNECTED, 6 ADD, 4 MUL,
  // 3 LOGISTIC, 2 TANH) and one FULLY_CONNECTED: 47 or 70 ops, and 3290
  // ops are whole steps either way.
  for (uint32_t seed : {1u, 2u, 3u, 4u}) {
    SCOPED_TRACE(seed);
    std::map<OpKind, int> mix = op_mix(build_synthetic_rnn({3290, seed}));
    const int cells = mix[OpKind::kMul] / 4;
    const int steps = mix[OpKind::kFullyConnected] - 8 * cells;
    EXPECT_TRUE(cells == 2 * steps || cells == 3 * steps) << cells << " cells, " << steps << " steps";
    EXPECT_EQ(mix[OpKind::kAdd], 6 * cells);
    EXPECT_EQ(mix[OpKind::kLogistic], 3 * cells);
    EXPECT_EQ(mix[OpKind::kTanh], 2 * cells);
    EXPECT_EQ(mix.size(), 5u);
  }
}

TEST(SyntheticRnn, IsDeterministicAndTheSeedChangesIt) {
  auto signature = [](const Graph& graph) {
    std::string s;
    for (const Op& op : graph.main().ops) {
      s += std::to_string(op.builtin_code) + ":";
      for (int32_t t : op.inputs) s += std::to_string(t) + ",";
      s += std::to_string(graph.main().tensors[static_cast<size_t>(op.outputs[0])].byte_size) + ";";
    }
    return s;
  };
  EXPECT_EQ(signature(build_synthetic_rnn({500, 3})), signature(build_synthetic_rnn({500, 3})));
  EXPECT_NE(signature(build_synthetic_rnn({500, 3})), signature(build_synthetic_rnn({500, 4})));
}

TEST(SyntheticRnn, IsAZooModelByName) {
  EXPECT_TRUE(is_zoo_model_name("synthetic_rnn_2338"));
  EXPECT_TRUE(is_zoo_model_name("synthetic_rnn_100_seed7"));
  const Graph graph = build_zoo_model("synthetic_rnn_100_seed7");
  EXPECT_EQ(graph.source, "synthetic_rnn_100_seed7");
  EXPECT_EQ(graph.main().ops.size(), 100u);
  EXPECT_EQ(synthetic_rnn_name({100, 7}), "synthetic_rnn_100_seed7");
  EXPECT_EQ(synthetic_rnn_name({100, 1}), "synthetic_rnn_100");
  for (const char* bad : {"synthetic_rnn_", "synthetic_rnn_x", "synthetic_rnn_10_seed", "synthetic_rnn_10_s1"}) {
    EXPECT_FALSE(is_zoo_model_name(bad)) << bad;
  }
  try {
    build_zoo_model("synthetic_rnn_0");
    ADD_FAILURE() << "no error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("synthetic_rnn_0"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("must be"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace dmo

// Ops of one signature share one address-only run: the signature tells
// apart everything the run depends on, and the shared runs give every op the
// O_s its own run gives.
#include <gtest/gtest.h>

#include <set>

#include "dmo/error.h"
#include "dmo/overlap/algorithmic_overlap.h"
#include "dmo/overlap/op_signature.h"
#include "dmo/overlap/overlap_candidates.h"
#include "dmo/runtime/interpreter.h"
#include "dmo/tflite/reader.h"
#include "dmo/zoo/graph_builder.h"
#include "dmo/zoo/synthetic_rnn.h"
#include "test_support.h"

namespace dmo {
namespace {

std::vector<OverlapCandidate> with_inputs(const Graph& graph) {
  std::vector<OverlapCandidate> pairs;
  for (const OverlapCandidate& c : overlap_candidates(graph, default_schedule(graph), false)) {
    if (c.input != kNoTensor && c.output != kNoTensor) pairs.push_back(c);
  }
  return pairs;
}

// Every op's own run, one at a time, against the shared runs.
void expect_shared_runs_match_own_runs(const Graph& graph, bool descending) {
  const std::vector<OverlapCandidate> pairs = with_inputs(graph);
  const std::vector<AlgorithmicOverlap> shared = algorithmic_overlaps(graph, pairs, descending);
  ASSERT_EQ(shared.size(), pairs.size());
  for (size_t i = 0; i < pairs.size(); ++i) {
    SCOPED_TRACE(pairs[i].op);
    EXPECT_EQ(shared[i].pair.op, pairs[i].op);
    std::optional<int64_t> own;
    try {
      own = algorithmic_safe_overlap(graph, pairs[i].op, pairs[i].input, pairs[i].output, descending);
    } catch (const Error&) {
    }
    EXPECT_EQ(shared[i].bytes, own);
  }
}

TEST(OpSignature, RepeatedCellsShareRunsAndTheirOverlapsMatch) {
  const Graph graph = build_synthetic_rnn({600, 5});
  std::set<std::string> signatures;
  for (const OverlapCandidate& c : with_inputs(graph)) signatures.insert(op_signature(graph, c.op, c.input, c.output));
  // Cells repeat every step: far fewer kernels run than there are ops.
  EXPECT_LT(signatures.size(), 100u);
  expect_shared_runs_match_own_runs(graph, false);
}

TEST(OpSignature, SharedModelsOverlapsMatchOwnRuns) {
  DMO_REQUIRE_SHARED(shared);
  for (const char* name : {"coral_mobilenet_v1_0.25_128_quant", "tiny_resnet8_int8", "litert_add_shared_tensors",
                           "tflm_mnist_lstm_int8", "litert_multi_subgraphs_while"}) {
    SCOPED_TRACE(name);
    const Graph graph = read_tflite_file(shared + "/models/" + name + ".tflite");
    expect_shared_runs_match_own_runs(graph, false);
  }
}

TEST(OpSignature, TellsApartShapesOperandsAndThePair) {
  GraphBuilder b("signatures");
  const int32_t x = b.add_tensor("x", DataType::kFloat32, {1, 8});
  const int32_t y = b.add_tensor("y", DataType::kFloat32, {1, 8});
  const int32_t z = b.add_tensor("z", DataType::kFloat32, {1, 16});
  const int32_t s1 = b.add_tensor("s1", DataType::kFloat32, {1, 8});
  const int32_t s2 = b.add_tensor("s2", DataType::kFloat32, {1, 8});
  const int32_t sq = b.add_tensor("sq", DataType::kFloat32, {1, 8});
  const int32_t wide = b.add_tensor("wide", DataType::kFloat32, {1, 16});
  b.add_op(OpKind::kAdd, {x, y}, {s1}, ElementwiseParams{});
  b.add_op(OpKind::kAdd, {s1, y}, {s2}, ElementwiseParams{});
  b.add_op(OpKind::kMul, {s2, s2}, {sq}, ElementwiseParams{});
  b.add_op(OpKind::kAdd, {z, z}, {wide}, ElementwiseParams{});
  b.set_inputs({x, y, z});
  b.set_outputs({sq, wide});
  const Graph graph = b.finish();
  // The same kind, shapes and pair position: one signature.
  EXPECT_EQ(op_signature(graph, 0, x, s1), op_signature(graph, 1, s1, s2));
  // The other operand as the pair's input, an operand read twice, other
  // shapes, another kind: each its own.
  const std::set<std::string> distinct = {op_signature(graph, 0, x, s1), op_signature(graph, 0, y, s1),
                                          op_signature(graph, 2, s2, sq), op_signature(graph, 3, z, wide)};
  EXPECT_EQ(distinct.size(), 4u);
  ElementwiseParams relu;
  relu.activation = Activation::kRelu;
  GraphBuilder c("with activation");
  const int32_t a = c.add_tensor("a", DataType::kFloat32, {1, 8});
  const int32_t a2 = c.add_tensor("a2", DataType::kFloat32, {1, 8});
  const int32_t out = c.add_tensor("out", DataType::kFloat32, {1, 8});
  c.add_op(OpKind::kAdd, {a, a2}, {out}, relu);
  c.set_inputs({a, a2});
  c.set_outputs({out});
  const Graph other = c.finish();
  EXPECT_NE(op_signature(other, 0, a, out), op_signature(graph, 0, x, s1));
}

}  // namespace
}  // namespace dmo

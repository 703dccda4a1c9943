// The address-only analysis stops past kMaxAddressOnlyAccesses loads and
// stores (model/limits.h): an op too large to analyse (a hostile file can
// make a tensor of a GiB) costs a bounded time, and gets its closed form,
// or 0, with the reason reported, instead of running its loop nest for
// seconds or minutes.
#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "dmo/model/limits.h"
#include "dmo/ops/memory_policy.h"
#include "dmo/overlap/safe_overlaps.h"
#include "dmo/zoo/graph_builder.h"

namespace dmo {
namespace {

TEST(AddressBudget, StopsOnlyPastTheLimit) {
  Tensor in_tensor, out_tensor;
  in_tensor.shape = out_tensor.shape = {8};
  TensorRef in{&in_tensor, nullptr, 0, false};
  TensorRef out{&out_tensor, nullptr, 1, true};
  AddressMemory memory(0, 1, 8, 8);
  memory.set_max_accesses(6);
  for (int64_t i = 0; i < 3; ++i) {
    memory.load<int8_t>(in, i);
    memory.store<int8_t>(out, i, 0);
  }
  EXPECT_EQ(memory.accesses(), 6);
  EXPECT_THROW(memory.load<int8_t>(in, 3), AddressBudgetExceeded);
}

TEST(AddressBudget, AnOpTooLargeToAnalyseGetsItsClosedFormAndTheReason) {
  // A 1x1 conv over 4096x4096 pixels of 8 channels: 9 accesses per pixel
  // under the address-only policy (8 stores, one read of the window), 151
  // million in all, past the limit. Its tensors (512 MiB each) are never
  // touched: the analysis records addresses only.
  const int32_t side = 4096, channels = 8;
  ASSERT_GT(int64_t{side} * side * 9, kMaxAddressOnlyAccesses);
  GraphBuilder b("oversized conv");
  const int32_t input = b.add_tensor("in", DataType::kFloat32, {1, side, side, channels});
  const int32_t filter = b.add_constant_values("filter", DataType::kFloat32, {channels, 1, 1, channels},
                                               std::vector<float>(channels * channels, 0.5f));
  const int32_t output = b.add_tensor("out", DataType::kFloat32, {1, side, side, channels});
  b.add_op(OpKind::kConv2D, {input, filter, kNoTensor}, {output},
           Conv2DParams{Padding::kValid, 1, 1, 1, 1, Activation::kNone});
  b.set_inputs({input});
  b.set_outputs({output});
  const Graph graph = b.finish();

  SafeOverlapOptions options;
  const std::vector<OpOverlap> overlaps = compute_safe_overlaps(graph, options);
  ASSERT_EQ(overlaps.size(), 1u);
  const OpOverlap& op = overlaps[0];
  EXPECT_FALSE(op.algorithmic.has_value());
  EXPECT_EQ(op.algorithmic_unavailable.rfind("op 0 (CONV_2D): address-only analysis stopped after", 0), 0u)
      << op.algorithmic_unavailable;
  ASSERT_TRUE(op.analytic.has_value());
  EXPECT_GT(*op.analytic, 0);
  EXPECT_EQ(op.used_bytes, *op.analytic / options.alignment * options.alignment);
}

}  // namespace
}  // namespace dmo

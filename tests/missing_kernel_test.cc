// The sweeps over real models skip a model only on the runtime's exact
// "no kernel" refusal: the helper must recognise that message as the
// runtime words it, and nothing else.
#include <gtest/gtest.h>

#include <string>

#include "dmo/error.h"
#include "dmo/runtime/input_pattern.h"
#include "dmo/runtime/interpreter.h"
#include "dmo/zoo/graph_builder.h"
#include "test_support.h"

namespace dmo {
namespace {

TEST(MissingKernel, RecognisesTheRuntimesRefusal) {
  GraphBuilder b("one op without a kernel");
  const int32_t in = b.add_tensor("in", DataType::kFloat32, {1, 4});
  const int32_t out = b.add_tensor("out", DataType::kFloat32, {1, 4});
  // LSH_PROJECTION: TFLM has no kernel for it either.
  b.add_op(static_cast<OpKind>(15), {in}, {out});
  b.set_inputs({in});
  b.set_outputs({out});
  const Graph graph = b.finish();
  Interpreter interpreter(graph, unshared_placement(graph.main()));
  interpreter.set_inputs(pattern_input(graph.main(), 1));
  try {
    interpreter.run();
    FAIL() << "LSH_PROJECTION ran: pick an op dmo has no kernel for";
  } catch (const Error& e) {
    auto missing = test::missing_kernel(e.what());
    ASSERT_TRUE(missing.has_value()) << e.what();
    EXPECT_EQ(missing->op, 0);
    EXPECT_EQ(missing->kind, "LSH_PROJECTION");
    EXPECT_EQ(test::describe_skip("m", *missing), "m: dmo has no kernel for op 0 (LSH_PROJECTION)");
  }
}

TEST(MissingKernel, RejectsEveryOtherError) {
  EXPECT_FALSE(test::missing_kernel(
      "op 0 (CONV_2D): filter type INT8 with FLOAT32 input is not supported; the filter must be FLOAT32"));
  EXPECT_FALSE(test::missing_kernel("op 3 (ADD): input 1 has 4 elements, expected 8"));
  // The refusal inside a longer message is another error.
  EXPECT_FALSE(test::missing_kernel("model.tflite: op 2 (WHILE): dmo has no kernel for this op (builtin code 119)"));
  EXPECT_FALSE(test::missing_kernel("op 2 (WHILE): dmo has no kernel for this op (builtin code 119); and more"));
  auto custom = test::missing_kernel("op 7 (MyCustomOp): dmo has no kernel for custom op 'MyCustomOp'");
  ASSERT_TRUE(custom.has_value());
  EXPECT_EQ(custom->op, 7);
  EXPECT_EQ(custom->kind, "MyCustomOp");
  auto accelerator =
      test::missing_kernel("op 0 (ethos-u): custom op 'ethos-u' runs on an accelerator; dmo cannot execute it");
  ASSERT_TRUE(accelerator.has_value());
  EXPECT_EQ(accelerator->kind, "ethos-u");
  // A custom op's refusal names its code twice; a mismatch is another message.
  EXPECT_FALSE(test::missing_kernel("op 7 (MyCustomOp): dmo has no kernel for custom op 'Other'"));
  // A signal op dmo runs fails on its operands, not for want of a kernel.
  EXPECT_FALSE(test::missing_kernel("op 3 (SignalRfft): custom option 'fft_length' is missing"));
}

}  // namespace
}  // namespace dmo

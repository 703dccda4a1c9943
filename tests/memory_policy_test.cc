// The memory policies on hand-written access sequences, independent of any
// real kernel: the algorithmic O_s formula and the clobber checker.
#include "dmo/ops/memory_policy.h"

#include <gtest/gtest.h>

namespace dmo {
namespace {

Tensor float_tensor(int64_t elements) {
  Tensor t;
  t.type = DataType::kFloat32;
  t.shape = {static_cast<int32_t>(elements)};
  t.element_count = elements;
  t.byte_size = elements * 4;
  return t;
}

TEST(AddressMemory, ElementwiseInOrderOverlapsCompletely) {
  Tensor in = float_tensor(8), out = float_tensor(8);
  TensorRef i{&in, nullptr, 0, false, true}, o{&out, nullptr, 1, true, true};
  AddressMemory mem(0, 1, in.byte_size, out.byte_size);
  for (int64_t k = 0; k < 8; ++k) mem.store<float>(o, k, mem.load<float>(i, k));
  EXPECT_EQ(mem.safe_overlap(), 32);
  EXPECT_EQ(mem.writes(), 8);
}

TEST(AddressMemory, ReadingAheadStillAllowsInPlace) {
  // Output element k reads inputs k and k+1. Once it is written, input k is
  // never read again, so writing over it in place is safe.
  Tensor in = float_tensor(9), out = float_tensor(8);
  TensorRef i{&in, nullptr, 0, false, true}, o{&out, nullptr, 1, true, true};
  AddressMemory mem(0, 1, in.byte_size, out.byte_size);
  for (int64_t k = 0; k < 8; ++k) {
    mem.load<float>(i, k);
    mem.load<float>(i, k + 1);
    mem.store<float>(o, k, 0.0f);
  }
  EXPECT_EQ(mem.safe_overlap(), 32);
}

TEST(AddressMemory, ReductionBeforeAnyWriteAllowsNoOverlap) {
  // Matrix-vector product: every output reads the whole input, so an output
  // byte written early must not cover any input byte.
  Tensor in = float_tensor(4), out = float_tensor(3);
  TensorRef i{&in, nullptr, 0, false, true}, o{&out, nullptr, 1, true, true};
  AddressMemory mem(0, 1, in.byte_size, out.byte_size);
  for (int64_t r = 0; r < 3; ++r) {
    for (int64_t c = 0; c < 4; ++c) mem.load<float>(i, c);
    mem.store<float>(o, r, 0.0f);
  }
  // After write 0 (bytes 0..3) input byte 0 is read again: delta = 3 - 0 + 1 = 4;
  // after write 1 (bytes ..7): delta = 8. O_s = 12 - 8 = 4: only the last
  // output element may cover the input's first.
  EXPECT_EQ(mem.safe_overlap(), 4);
}

TEST(AddressMemory, IgnoresOtherTensors) {
  Tensor in = float_tensor(4), other = float_tensor(4), out = float_tensor(4);
  TensorRef i{&in, nullptr, 0, false, true}, x{&other, nullptr, 5, false, true}, o{&out, nullptr, 1, true, true};
  AddressMemory mem(0, 1, in.byte_size, out.byte_size);
  for (int64_t k = 0; k < 4; ++k) {
    mem.load<float>(x, 0);
    mem.store<float>(o, k, mem.load<float>(i, k));
  }
  EXPECT_EQ(mem.safe_overlap(), 16);
}

TEST(AddressMemory, MirroredMeasuresADescendingWalk) {
  // Output element k reads inputs k and k+1, walked from the last k down.
  // Walking descending, input element k+1 is dead once output k is written,
  // but input k is still read by output k-1: an output placed above the
  // input may cover all but the input's first element (of the 9), so the
  // input's end may overlap the output's start by 8 elements.
  Tensor in = float_tensor(9), out = float_tensor(8);
  TensorRef i{&in, nullptr, 0, false, true}, o{&out, nullptr, 1, true, true};
  AddressMemory mem(0, 1, in.byte_size, out.byte_size, /*mirrored=*/true);
  for (int64_t k = 7; k >= 0; --k) {
    mem.load<float>(i, k);
    mem.load<float>(i, k + 1);
    mem.store<float>(o, k, 0.0f);
  }
  EXPECT_EQ(mem.safe_overlap(), 32);

  // The same reads walked ascending leave nothing to overlap at the input's
  // end: the last output element is written last, after input 0 is read.
  AddressMemory wrong_way(0, 1, in.byte_size, out.byte_size, /*mirrored=*/true);
  for (int64_t k = 0; k < 8; ++k) {
    wrong_way.load<float>(i, k);
    wrong_way.load<float>(i, k + 1);
    wrong_way.store<float>(o, k, 0.0f);
  }
  EXPECT_EQ(wrong_way.safe_overlap(), 0);
}

TEST(CheckingMemory, FlagsReadOfOverwrittenInputByte) {
  std::vector<uint8_t> arena(64, 0);
  Tensor in = float_tensor(8), out = float_tensor(8);
  // Output at 0, input at 4: writing output element k+1 covers input element k.
  TensorRef i{&in, arena.data() + 4, 0, false, true}, o{&out, arena.data(), 1, true, true};
  CheckingMemory mem(arena.data(), 64);
  mem.begin_op(7);
  mem.store<float>(o, 0, 1.0f);  // bytes 0..3: nothing of the input
  EXPECT_FALSE(mem.clobber());
  mem.store<float>(o, 1, 1.0f);  // bytes 4..7 = input element 0
  mem.load<float>(i, 1);         // fine: not overwritten
  EXPECT_FALSE(mem.clobber());
  mem.load<float>(i, 0);
  ASSERT_TRUE(mem.clobber());
  EXPECT_EQ(mem.clobber()->op, 7);
  EXPECT_EQ(mem.clobber()->tensor, 0);
  EXPECT_EQ(mem.clobber()->byte_offset, 0);
}

TEST(CheckingMemory, ForgetsWritesOfEarlierOps) {
  std::vector<uint8_t> arena(32, 0);
  Tensor a = float_tensor(4);
  TensorRef as_output{&a, arena.data(), 0, true, true}, as_input{&a, arena.data(), 0, false, true};
  CheckingMemory mem(arena.data(), 32);
  mem.begin_op(0);
  mem.store<float>(as_output, 0, 2.5f);
  mem.begin_op(1);
  EXPECT_EQ(mem.load<float>(as_input, 0), 2.5f);
  EXPECT_FALSE(mem.clobber());
  // Many ops later (stamp wrap-around) still no stale marks.
  for (int op = 2; op < 600; ++op) mem.begin_op(op);
  mem.load<float>(as_input, 0);
  EXPECT_FALSE(mem.clobber());
}

}  // namespace
}  // namespace dmo

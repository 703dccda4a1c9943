// PAD, PADV2, TRANSPOSE, MAXIMUM and MINIMUM in the cmsis-nn and
// cmsis-nn-dsp kernel families: which CMSIS-NN function and path each op
// selects, where the glue falls back to TFLM's reference kernels, what dmo
// refuses (shapes the glue or CMSIS-NN would get wrong), values against
// hand-computed TFLite results, and the safe overlap each family's access
// order gives: no clobber at O_s, a clobber one element beyond, outputs
// equal to the reference kernel's, on chosen shapes and a few hundred
// random ones; the copying paths (arm_pad_s8's memcpy, a 1-axis transpose)
// take each memcpy in its worst order, all its stores before its loads.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "dmo/error.h"
#include "dmo/runtime/interpreter.h"
#include "dmo/tflite/graph_writer.h"
#include "dmo/tflite/reader.h"
#include "dmo/zoo/graph_builder.h"
#include "single_op_overlap.h"
#include "test_support.h"

namespace dmo {
namespace {

using test::addresses;
using test::bytes_of;
using test::clobbers_at_overlap;
using test::OneOp;
using test::per_tensor;
using test::values_from;

constexpr KernelFamily kPortable = KernelFamily::kCmsisNn;
constexpr KernelFamily kDsp = KernelFamily::kCmsisNnDsp;
constexpr std::array<KernelFamily, 2> kCmsisFamilies = {kPortable, kDsp};

std::vector<uint8_t> random_bytes(std::mt19937& rng, int64_t n) {
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<uint8_t> v(static_cast<size_t>(n));
  for (uint8_t& b : v) b = static_cast<uint8_t>(byte(rng));
  return v;
}

Quantization quantization_for(DataType type) {
  if (type == DataType::kInt8) return per_tensor(0.05f, -3);
  if (type == DataType::kInt16) return per_tensor(0.001f, 0);
  return {};
}

// ------------------------------------------------------------- builders

// PAD (PADV2 when `constant` is given: a constant scalar pad value) of a
// `type` tensor by `paddings` (before, after per dimension).
OneOp pad(DataType type, const Shape& in, const std::vector<int32_t>& paddings, std::optional<int8_t> constant = {}) {
  GraphBuilder b("cmsis pad");
  OneOp m;
  const Quantization q = quantization_for(type);
  m.input = b.add_tensor("input", type, in, q);
  const int32_t pads = b.add_constant_values<int32_t>("paddings", DataType::kInt32,
                                                      {static_cast<int32_t>(in.size()), 2}, paddings);
  Shape out = in;
  for (size_t d = 0; d < in.size(); ++d) out[d] += paddings[2 * d] + paddings[2 * d + 1];
  m.output = b.add_tensor("output", type, out, q);
  std::vector<int32_t> inputs = {m.input, pads};
  if (constant) inputs.push_back(b.add_constant_values<int8_t>("constant", type, {}, {*constant}, q));
  b.add_op(constant ? OpKind::kPadV2 : OpKind::kPad, inputs, {m.output});
  b.set_inputs({m.input});
  b.set_outputs({m.output});
  m.graph = b.finish();
  return m;
}

// TRANSPOSE of a `type` tensor by `perm`.
OneOp transpose(DataType type, const Shape& in, const std::vector<int32_t>& perm) {
  GraphBuilder b("cmsis transpose");
  OneOp m;
  const Quantization q = quantization_for(type);
  m.input = b.add_tensor("input", type, in, q);
  const int32_t p = b.add_constant_values<int32_t>("perm", DataType::kInt32, {static_cast<int32_t>(perm.size())}, perm);
  Shape out;
  for (int32_t axis : perm) out.push_back(in[static_cast<size_t>(axis)]);
  m.output = b.add_tensor("output", type, out, q);
  b.add_op(OpKind::kTranspose, {m.input, p}, {m.output});
  b.set_inputs({m.input});
  b.set_outputs({m.output});
  m.graph = b.finish();
  return m;
}

// The NumPy broadcast of two shapes (for building valid ops).
Shape broadcast_of(const Shape& a, const Shape& b) {
  const size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t d = 0; d < rank; ++d) {
    const int32_t x = d + a.size() >= rank ? a[d + a.size() - rank] : 1;
    const int32_t y = d + b.size() >= rank ? b[d + b.size() - rank] : 1;
    out[d] = std::max(x, y);
  }
  return out;
}

// MAXIMUM or MINIMUM of `type` tensors shaped a and b; O_s against input `which`.
OneOp max_min(OpKind kind, DataType type, const Shape& a, const Shape& b_shape, int which) {
  GraphBuilder b("cmsis maximum minimum");
  const Quantization q = quantization_for(type);
  const int32_t x = b.add_tensor("a", type, a, q);
  const int32_t y = b.add_tensor("b", type, b_shape, q);
  OneOp m;
  m.output = b.add_tensor("output", type, broadcast_of(a, b_shape), q);
  m.input = which == 0 ? x : y;
  b.add_op(kind, {x, y}, {m.output});
  b.set_inputs({x, y});
  b.set_outputs({m.output});
  m.graph = b.finish();
  return m;
}

// ------------------------------------------------------------- helpers

// The implementation and scratch the op prepares with under `family`.
struct Selection {
  std::string implementation;
  std::vector<KernelScratch> scratch;
};
Selection selection(const OneOp& m, KernelFamily family) {
  const Interpreter interpreter(m.graph, unshared_placement(m.graph.main()), test::schedule_for(m, family));
  const PreparedKernel& k = interpreter.prepared(0);
  return Selection{k.implementation, k.scratch};
}

// Output bytes of the op run unshared under `family` on `input` (all graph inputs).
std::vector<uint8_t> run_family(const OneOp& m, KernelFamily family, const std::vector<uint8_t>& input) {
  Interpreter interpreter(m.graph, unshared_placement(m.graph.main()), test::schedule_for(m, family));
  interpreter.set_inputs(input);
  interpreter.run();
  return interpreter.tensor_contents(m.output);
}

std::string run_error(const OneOp& m, KernelFamily family) {
  return test::error_of([&] {
    Interpreter interpreter(m.graph, unshared_placement(m.graph.main()), test::schedule_for(m, family));
    interpreter.set_inputs(std::vector<uint8_t>(static_cast<size_t>(interpreter.input_bytes())));
    interpreter.run();
  });
}

void expect_error(const OneOp& m, KernelFamily family, const std::string& wanted) {
  const std::string message = run_error(m, family);
  EXPECT_NE(message.find(wanted), std::string::npos) << "wanted: " << wanted << "\ngot: " << message;
}

int64_t element_bytes(const OneOp& m) {
  return element_size(m.graph.main().tensors[static_cast<size_t>(m.input)].type).value_or(1);
}

std::vector<uint8_t> graph_input_bytes(const OneOp& m, std::mt19937& rng) {
  const Interpreter interpreter(m.graph, unshared_placement(m.graph.main()));
  return random_bytes(rng, interpreter.input_bytes());
}

// The two facts of an algorithmic O_s for `family`: no clobber (and the
// reference's output) at O_s; a clobber one input element beyond, when
// that still fits in both tensors. Returns O_s.
int64_t expect_tight_overlap(const OneOp& m, KernelFamily family, const std::vector<uint8_t>& input,
                             const std::string& what) {
  const int64_t os = addresses(m, family).safe_overlap();
  EXPECT_FALSE(clobbers_at_overlap(m, os, input, family)) << what << " at O_s " << os;
  const int64_t beyond = os + element_bytes(m);
  if (beyond <= std::min(test::bytes_of_tensor(m, m.input), test::bytes_of_tensor(m, m.output))) {
    EXPECT_TRUE(clobbers_at_overlap(m, beyond, input, family)) << what << " at " << beyond << " (O_s " << os << ")";
  }
  return os;
}

// A copying path: the op memcpy's from the input to the output, each copy
// folded in its worst order (all its stores, then its loads), and that O_s
// is as tight as an element-wise one. Returns O_s.
int64_t expect_copy_overlap(const OneOp& m, KernelFamily family, const std::vector<uint8_t>& input,
                            const std::string& what) {
  EXPECT_TRUE(addresses(m, family).copied_input_to_output()) << what;
  return expect_tight_overlap(m, family, input, what);
}

// ------------------------------------------------------------- PAD

TEST(CmsisNnPad, SelectsArmPadS8ForInt8AndTheReferenceOtherwise) {
  const OneOp rows = pad(DataType::kInt8, {1, 3, 3, 2}, {0, 0, 1, 1, 1, 1, 0, 0});
  const OneOp pixels = pad(DataType::kInt8, {1, 3, 3, 2}, {0, 0, 0, 0, 0, 0, 1, 2});
  const OneOp v2 = pad(DataType::kInt8, {2, 3}, {1, 0, 0, 0}, int8_t{7});
  for (KernelFamily family : kCmsisFamilies) {
    EXPECT_EQ(selection(rows, family).implementation, "arm_pad_s8 (rows copied whole)");
    EXPECT_EQ(selection(pixels, family).implementation, "arm_pad_s8 (pixel by pixel)");
    EXPECT_EQ(selection(v2, family).implementation, "arm_pad_s8 (rows copied whole)");
    // The glue requests no scratch buffer.
    EXPECT_TRUE(selection(rows, family).scratch.empty());
    EXPECT_TRUE(selection(pixels, family).scratch.empty());
    // FLOAT32, INT16 and INT32 run TFLM's reference kernel.
    for (DataType type : {DataType::kFloat32, DataType::kInt16, DataType::kInt32}) {
      EXPECT_EQ(selection(pad(type, {2, 2}, {1, 0, 0, 1}), family).implementation, "") << data_type_name(type);
    }
  }
  EXPECT_EQ(selection(rows, KernelFamily::kTflmReference).implementation, "");
}

TEST(CmsisNnPad, ComputesTfliteValues) {
  // 2x2 padded one row above and one column to the right with the output
  // zero point -3.
  const OneOp top_right = pad(DataType::kInt8, {2, 2}, {1, 0, 0, 1});
  // PADV2 pads with its constant: channels 1 before, 1 after.
  const OneOp channels = pad(DataType::kInt8, {1, 1, 2, 2}, {0, 0, 0, 0, 0, 0, 1, 1}, int8_t{100});
  // Five dimensions whose leading one is 1 and unpadded.
  const OneOp five = pad(DataType::kInt8, {1, 1, 1, 1, 2}, {0, 0, 0, 0, 1, 0, 0, 0, 0, 1});
  for (KernelFamily family : kCmsisFamilies) {
    EXPECT_EQ(values_from<int8_t>(run_family(top_right, family, bytes_of<int8_t>({1, -2, 127, -128}))),
              (std::vector<int8_t>{-3, -3, -3, 1, -2, -3, 127, -128, -3}));
    EXPECT_EQ(values_from<int8_t>(run_family(channels, family, bytes_of<int8_t>({5, 6, -7, -8}))),
              (std::vector<int8_t>{100, 5, 6, 100, 100, -7, -8, 100}));
    EXPECT_EQ(values_from<int8_t>(run_family(five, family, bytes_of<int8_t>({9, 10}))),
              (std::vector<int8_t>{-3, -3, -3, 9, 10, -3}));
    // INT16 runs the reference kernel, which pads with 0.
    EXPECT_EQ(values_from<int16_t>(run_family(pad(DataType::kInt16, {2}, {1, 1}), family,
                                              bytes_of<int16_t>({-300, 300}))),
              (std::vector<int16_t>{0, -300, 300, 0}));
  }
}

TEST(CmsisNnPad, CopiesRowsInTheMemcpysWorstOrder) {
  std::mt19937 rng(11);
  // Two rows of 4 with a row of padding above: TFLM's reference reads each
  // element just before it stores the element 4 bytes further on, so it
  // may overlap 8 bytes; arm_pad_s8 memcpy's both rows at once, input bytes
  // 0..7 to output bytes 4..11, which may all be written before any is
  // read: no overlap.
  const OneOp above = pad(DataType::kInt8, {2, 4}, {1, 0, 0, 0});
  EXPECT_EQ(addresses(above, KernelFamily::kTflmReference).safe_overlap(), 8);
  // 1x2x3x2 padded to 1x3x4x3, pixel by pixel: the last pixel's 2 bytes
  // (input 10..11) go to output bytes 31..32, so the 36-byte output may
  // overlap the input by 36 - (32 - 10 + 1) = 13 bytes.
  const OneOp pixels = pad(DataType::kInt8, {1, 2, 3, 2}, {0, 0, 1, 0, 0, 1, 1, 0});
  for (KernelFamily family : kCmsisFamilies) {
    EXPECT_EQ(expect_copy_overlap(above, family, graph_input_bytes(above, rng), "rows"), 0);
    EXPECT_EQ(expect_copy_overlap(pixels, family, graph_input_bytes(pixels, rng), "pixels"), 13);
    // One byte of overlap: the memcpy's source and destination overlap
    // without coinciding, a clobber where the reference has none.
    EXPECT_TRUE(clobbers_at_overlap(above, 1, graph_input_bytes(above, rng), family));
    EXPECT_FALSE(clobbers_at_overlap(above, 1, graph_input_bytes(above, rng), KernelFamily::kTflmReference));
  }
}

TEST(CmsisNnPad, RefusesLeadingDimensionsTheGlueDrops) {
  const OneOp padded_lead = pad(DataType::kInt8, {1, 1, 2, 2, 2}, {1, 0, 0, 0, 0, 0, 0, 0, 0, 0});
  const OneOp big_lead = pad(DataType::kInt8, {2, 1, 2, 2, 2}, {0, 0, 0, 0, 1, 0, 0, 0, 0, 0});
  for (KernelFamily family : kCmsisFamilies) {
    expect_error(padded_lead, family,
                 "op 0 (PAD): TFLM's cmsis_nn glue passes arm_pad_s8 only the last 4 of the input's 5 dimensions; "
                 "dimension 0 (size 1, padding (1, 0)) would be dropped");
    expect_error(big_lead, family, "dimension 0 (size 2, padding (0, 0)) would be dropped");
  }
  EXPECT_EQ(run_error(padded_lead, KernelFamily::kTflmReference), "");
}

TEST(CmsisNnPad, RejectsBadOperandsAsTheReferenceDoes) {
  GraphBuilder b("bad pad");
  OneOp m;
  m.input = b.add_tensor("input", DataType::kInt8, {2, 2}, quantization_for(DataType::kInt8));
  const int32_t pads = b.add_constant_values<int32_t>("paddings", DataType::kInt32, {2, 2}, {1, 0, 0, 0});
  m.output = b.add_tensor("output", DataType::kInt8, {2, 2}, quantization_for(DataType::kInt8));
  b.add_op(OpKind::kPad, {m.input, pads}, {m.output});
  b.set_inputs({m.input});
  b.set_outputs({m.output});
  m.graph = b.finish();
  GraphBuilder c("pad type");
  OneOp t;
  t.input = c.add_tensor("input", DataType::kInt8, {2}, quantization_for(DataType::kInt8));
  const int32_t t_pads = c.add_constant_values<int32_t>("paddings", DataType::kInt32, {1, 2}, {1, 0});
  t.output = c.add_tensor("output", DataType::kInt16, {3});
  c.add_op(OpKind::kPad, {t.input, t_pads}, {t.output});
  c.set_inputs({t.input});
  c.set_outputs({t.output});
  t.graph = c.finish();
  GraphBuilder d("pad counts");
  OneOp n;
  n.input = d.add_tensor("input", DataType::kInt8, {2}, quantization_for(DataType::kInt8));
  n.output = d.add_tensor("output", DataType::kInt8, {3});
  d.add_op(OpKind::kPad, {n.input}, {n.output});
  d.set_inputs({n.input});
  d.set_outputs({n.output});
  n.graph = d.finish();
  for (KernelFamily family : kCmsisFamilies) {
    expect_error(m, family, "op 0 (PAD): output dimension 0 is 2, but input 2 padded by (1, 0) gives 3");
    expect_error(t, family, "op 0 (PAD): output type INT16 differs from input type INT8");
    expect_error(n, family, "op 0 (PAD): expected 2 or 3 inputs (input, paddings[, constant value]), got 1");
  }
}

// ------------------------------------------------------------- TRANSPOSE

TEST(CmsisNnTranspose, SelectsArmTransposeS8PathsForInt8AndTheReferenceOtherwise) {
  for (KernelFamily family : kCmsisFamilies) {
    EXPECT_EQ(selection(transpose(DataType::kInt8, {6}, {0}), family).implementation,
              "arm_transpose_s8 (1 axis: memcpy)");
    EXPECT_EQ(selection(transpose(DataType::kInt8, {3, 4}, {1, 0}), family).implementation,
              "arm_transpose_s8_nhcw (2 axes)");
    EXPECT_EQ(selection(transpose(DataType::kInt8, {2, 3, 4}, {2, 0, 1}), family).implementation,
              "arm_transpose_s8_default");
    EXPECT_EQ(selection(transpose(DataType::kInt8, {1, 2, 3, 4}, {0, 3, 1, 2}), family).implementation,
              "arm_transpose_s8_default");
    EXPECT_TRUE(selection(transpose(DataType::kInt8, {3, 4}, {1, 0}), family).scratch.empty());
    EXPECT_EQ(selection(transpose(DataType::kInt16, {3, 4}, {1, 0}), family).implementation, "");
    EXPECT_EQ(selection(transpose(DataType::kFloat32, {3, 4}, {1, 0}), family).implementation, "");
  }
}

TEST(CmsisNnTranspose, ComputesTfliteValues) {
  const OneOp matrix = transpose(DataType::kInt8, {2, 3}, {1, 0});
  const OneOp three = transpose(DataType::kInt8, {2, 2, 3}, {0, 2, 1});
  const OneOp nchw = transpose(DataType::kInt8, {1, 2, 2, 3}, {0, 3, 1, 2});
  const OneOp row = transpose(DataType::kInt8, {4}, {0});
  std::vector<int8_t> twelve(12);
  std::iota(twelve.begin(), twelve.end(), int8_t{0});
  for (KernelFamily family : kCmsisFamilies) {
    EXPECT_EQ(values_from<int8_t>(run_family(matrix, family, bytes_of<int8_t>({1, 2, 3, 4, 5, 6}))),
              (std::vector<int8_t>{1, 4, 2, 5, 3, 6}));
    EXPECT_EQ(values_from<int8_t>(run_family(three, family, bytes_of(twelve))),
              (std::vector<int8_t>{0, 3, 1, 4, 2, 5, 6, 9, 7, 10, 8, 11}));
    EXPECT_EQ(values_from<int8_t>(run_family(nchw, family, bytes_of(twelve))),
              (std::vector<int8_t>{0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11}));
    EXPECT_EQ(values_from<int8_t>(run_family(row, family, bytes_of<int8_t>({-128, 127, 0, 1}))),
              (std::vector<int8_t>{-128, 127, 0, 1}));
    EXPECT_EQ(values_from<int16_t>(run_family(transpose(DataType::kInt16, {2, 2}, {1, 0}), family,
                                              bytes_of<int16_t>({1000, -2000, 3000, -4000}))),
              (std::vector<int16_t>{1000, 3000, -2000, -4000}));
  }
}

// arm_transpose_s8 reads the input front to back and scatters; TFLM's
// reference writes the output front to back and gathers. Each element is
// read once and written once, and in both orders an overlap is safe
// exactly while no element moves further toward the end than the distance
// between the input's start and the output's: the two O_s are equal.
TEST(CmsisNnTranspose, ScatteringGivesTheReferenceSafeOverlap) {
  std::mt19937 rng(12);
  const OneOp nchw = transpose(DataType::kInt8, {1, 4, 4, 3}, {0, 3, 1, 2});
  const OneOp matrix = transpose(DataType::kInt8, {4, 6}, {1, 0});
  const OneOp batch_kept = transpose(DataType::kInt8, {3, 2, 5}, {0, 2, 1});
  for (KernelFamily family : kCmsisFamilies) {
    const std::string name(kernel_family_name(family));
    EXPECT_EQ(expect_tight_overlap(nchw, family, graph_input_bytes(nchw, rng), "nchw " + name), 18);
    EXPECT_EQ(expect_tight_overlap(matrix, family, graph_input_bytes(matrix, rng), "matrix " + name), 9);
    EXPECT_EQ(expect_tight_overlap(batch_kept, family, graph_input_bytes(batch_kept, rng), "batch " + name), 26);
    // One memcpy of the whole tensor: no overlap.
    EXPECT_EQ(expect_copy_overlap(transpose(DataType::kInt8, {5}, {0}), family, random_bytes(rng, 5), "1 axis " + name),
              0);
  }
  EXPECT_EQ(addresses(nchw, KernelFamily::kTflmReference).safe_overlap(), 18);
  EXPECT_EQ(addresses(matrix, KernelFamily::kTflmReference).safe_overlap(), 9);
  EXPECT_EQ(addresses(batch_kept, KernelFamily::kTflmReference).safe_overlap(), 26);
}

TEST(CmsisNnTranspose, RefusesWhatTheGlueOrArmTransposeS8GetsWrong) {
  const OneOp five = transpose(DataType::kInt8, {1, 2, 1, 2, 3}, {0, 1, 2, 4, 3});
  const OneOp identity = transpose(DataType::kInt8, {2, 3}, {0, 1});
  const OneOp row_identity = transpose(DataType::kInt8, {1, 5}, {0, 1});
  for (KernelFamily family : kCmsisFamilies) {
    expect_error(five, family,
                 "op 0 (TRANSPOSE): TFLM's cmsis_nn glue refuses an INT8 transpose of 5 axes (arm_transpose_s8 "
                 "takes at most 4)");
    expect_error(identity, family,
                 "op 0 (TRANSPOSE): arm_transpose_s8 swaps the axes of every 2-D input, so TFLM's cmsis_nn glue "
                 "would transpose this 2x3 input although perm is the identity");
    // A single row transposed is the same bytes.
    EXPECT_EQ(values_from<int8_t>(run_family(row_identity, family, bytes_of<int8_t>({1, 2, 3, 4, 5}))),
              (std::vector<int8_t>{1, 2, 3, 4, 5}));
  }
  EXPECT_EQ(run_error(five, KernelFamily::kTflmReference), "");
  EXPECT_EQ(run_error(identity, KernelFamily::kTflmReference), "");
}

TEST(CmsisNnTranspose, RejectsBadOperandsAsTheReferenceDoes) {
  const OneOp repeated = transpose(DataType::kInt8, {2, 2}, {1, 1});
  GraphBuilder b("bad transpose");
  OneOp m;
  m.input = b.add_tensor("input", DataType::kInt8, {2, 3});
  const int32_t p = b.add_constant_values<int32_t>("perm", DataType::kInt32, {2}, {1, 0});
  m.output = b.add_tensor("output", DataType::kInt8, {2, 3});
  b.add_op(OpKind::kTranspose, {m.input, p}, {m.output});
  b.set_inputs({m.input});
  b.set_outputs({m.output});
  m.graph = b.finish();
  GraphBuilder c("transpose uint8");
  OneOp u;
  u.input = c.add_tensor("input", DataType::kUInt8, {2, 3});
  const int32_t up = c.add_constant_values<int32_t>("perm", DataType::kInt32, {2}, {1, 0});
  u.output = c.add_tensor("output", DataType::kUInt8, {3, 2});
  c.add_op(OpKind::kTranspose, {u.input, up}, {u.output});
  c.set_inputs({u.input});
  c.set_outputs({u.output});
  u.graph = c.finish();
  for (KernelFamily family : kCmsisFamilies) {
    expect_error(repeated, family, "op 0 (TRANSPOSE): perm names axis 1 twice");
    expect_error(m, family, "op 0 (TRANSPOSE): output shape 2x3 is not the input's 2x3 permuted by perm: 3x2");
    expect_error(u, family, "op 0 (TRANSPOSE): input type UINT8 is not supported");
  }
}

// The one line and exit status 2 of the CLI for a model whose TRANSPOSE the
// glue would get wrong, under the family that links CMSIS-NN only.
TEST(CmsisNnTranspose, TheCliRefusesAnIdentityMatrixTransposeUnderCmsisNn) {
  const OneOp identity = transpose(DataType::kInt8, {2, 3}, {0, 1});
  const std::vector<uint8_t> bytes = write_tflite(identity.graph);
  const std::string file =
      (std::filesystem::temp_directory_path() / ("dmo_cmsis_identity_" + std::to_string(::getpid()) + ".tflite"))
          .string();
  std::ofstream(file, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  const test::CommandResult r = test::run_dmo({"verify", file, "--kernels", "cmsis-nn"});
  EXPECT_EQ(r.exit_status, 2) << r.out << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("op 0 (TRANSPOSE): arm_transpose_s8 swaps the axes of every 2-D input"), std::string::npos)
      << r.err;
  EXPECT_EQ(test::run_dmo({"verify", file, "--kernels", "tflm-reference"}).exit_status, 0);
  std::filesystem::remove(file);
}

// ------------------------------------------------------------- MAXIMUM and MINIMUM

TEST(CmsisNnMaximumMinimum, SelectsTheS8FunctionsForAnInt8OutputAndTheReferenceOtherwise) {
  for (KernelFamily family : kCmsisFamilies) {
    EXPECT_EQ(selection(max_min(OpKind::kMaximum, DataType::kInt8, {2, 3}, {2, 3}, 0), family).implementation,
              "arm_maximum_s8 (no broadcast)");
    // Equal once extended to 4 dimensions: no broadcast for CMSIS-NN.
    EXPECT_EQ(selection(max_min(OpKind::kMinimum, DataType::kInt8, {2, 3}, {1, 2, 3}, 0), family).implementation,
              "arm_minimum_s8 (no broadcast)");
    EXPECT_EQ(selection(max_min(OpKind::kMaximum, DataType::kInt8, {1}, {2, 3}, 0), family).implementation,
              "arm_maximum_s8 (scalar)");
    EXPECT_EQ(selection(max_min(OpKind::kMinimum, DataType::kInt8, {2, 1, 3}, {2, 4, 3}, 0), family).implementation,
              "arm_minimum_s8 (broadcast)");
    EXPECT_TRUE(selection(max_min(OpKind::kMaximum, DataType::kInt8, {2, 3}, {2, 3}, 0), family).scratch.empty());
    for (DataType type : {DataType::kFloat32, DataType::kInt16, DataType::kInt32}) {
      EXPECT_EQ(selection(max_min(OpKind::kMaximum, type, {2, 3}, {3}, 0), family).implementation, "")
          << data_type_name(type);
    }
  }
}

TEST(CmsisNnMaximumMinimum, ComputesTfliteValues) {
  const OneOp same = max_min(OpKind::kMaximum, DataType::kInt8, {4}, {4}, 0);
  const OneOp scalar = max_min(OpKind::kMinimum, DataType::kInt8, {2, 2}, {1}, 0);
  // a [2,1,2] against b [1,3,1]: out[i][j][k] = f(a[i][0][k], b[0][j][0]).
  const OneOp both = max_min(OpKind::kMaximum, DataType::kInt8, {2, 1, 2}, {1, 3, 1}, 0);
  const OneOp channels = max_min(OpKind::kMinimum, DataType::kInt8, {1, 2, 3}, {1, 2, 1}, 0);
  for (KernelFamily family : kCmsisFamilies) {
    EXPECT_EQ(values_from<int8_t>(run_family(same, family, bytes_of<int8_t>({-128, 5, 127, 0, 127, 5, -128, 0}))),
              (std::vector<int8_t>{127, 5, 127, 0}));
    EXPECT_EQ(values_from<int8_t>(run_family(scalar, family, bytes_of<int8_t>({-5, 3, 0, 100, 2}))),
              (std::vector<int8_t>{-5, 2, 0, 2}));
    EXPECT_EQ(values_from<int8_t>(run_family(both, family, bytes_of<int8_t>({1, 10, -1, -10, 0, 5, 20}))),
              (std::vector<int8_t>{1, 10, 5, 10, 20, 20, 0, 0, 5, 5, 20, 20}));
    EXPECT_EQ(values_from<int8_t>(run_family(channels, family, bytes_of<int8_t>({1, 2, 3, 4, 5, 6, 2, -1}))),
              (std::vector<int8_t>{1, 2, 2, -1, -1, -1}));
    EXPECT_EQ(values_from<int16_t>(run_family(max_min(OpKind::kMaximum, DataType::kInt16, {2}, {1}, 0), family,
                                              bytes_of<int16_t>({-300, 400, 0}))),
              (std::vector<int16_t>{0, 400}));
  }
}

// Where arm_maximum_s8 and arm_minimum_s8 address the inputs as TFLite's
// broadcast does not, by the pointer steps read in their source: an input
// of more than one row of single elements against a wider other input.
bool cmsis_nn_misaddresses(const Shape& a, const Shape& b) {
  auto extended = [](const Shape& s) {
    Shape e(4 - s.size(), 1);
    e.insert(e.end(), s.begin(), s.end());
    return e;
  };
  const Shape x = extended(a), y = extended(b);
  auto single_column_rows = [](const Shape& s, const Shape& other) {
    return s[1] > 1 && s[2] == 1 && s[3] == 1 && other[2] > 1;
  };
  return x != y && (single_column_rows(x, y) || single_column_rows(y, x));
}

TEST(CmsisNnMaximumMinimum, RefusesTheBroadcastsCmsisNnMisaddresses) {
  const OneOp rows = max_min(OpKind::kMaximum, DataType::kInt8, {1, 3, 1, 1}, {1, 3, 4, 1}, 0);
  const OneOp second = max_min(OpKind::kMinimum, DataType::kInt8, {3, 4, 2}, {3, 1, 1}, 0);
  const OneOp five = max_min(OpKind::kMaximum, DataType::kInt8, {1, 1, 2, 2, 2}, {2}, 0);
  EXPECT_TRUE(cmsis_nn_misaddresses({1, 3, 1, 1}, {1, 3, 4, 1}));
  EXPECT_TRUE(cmsis_nn_misaddresses({3, 4, 2}, {3, 1, 1}));
  for (KernelFamily family : kCmsisFamilies) {
    // Row 0 reads element 0 of a, then the pointer steps 2 rows on.
    expect_error(rows, family,
                 "op 0 (MAXIMUM): arm_maximum_s8 mis-addresses the broadcast of 1x3x1x1 against 1x3x4x1: it reads "
                 "element 2 of input 0 for output element 4, which TFLite takes from element 1");
    expect_error(second, family, "op 0 (MINIMUM): arm_minimum_s8 mis-addresses the broadcast of 3x4x2 against 3x1x1");
    expect_error(five, family,
                 "op 0 (MAXIMUM): TFLM's cmsis_nn glue extends shapes to 4 dimensions for arm_maximum_s8; 1x1x2x2x2 "
                 "has 5");
  }
  EXPECT_EQ(run_error(rows, KernelFamily::kTflmReference), "");
  // One column of channels against a row of them is fine: w of the wider is 1.
  EXPECT_EQ(selection(max_min(OpKind::kMaximum, DataType::kInt8, {1, 3, 1, 1}, {1, 3, 1, 5}, 0), kPortable)
                .implementation,
            "arm_maximum_s8 (broadcast)");
}

TEST(CmsisNnMaximumMinimum, RejectsBadOperandsAsTheReferenceDoes) {
  const OneOp shapes = [] {
    GraphBuilder b("max shapes");
    OneOp m;
    const int32_t x = b.add_tensor("a", DataType::kInt8, {2, 3});
    const int32_t y = b.add_tensor("b", DataType::kInt8, {2, 2});
    m.output = b.add_tensor("output", DataType::kInt8, {2, 3});
    m.input = x;
    b.add_op(OpKind::kMaximum, {x, y}, {m.output});
    b.set_inputs({x, y});
    b.set_outputs({m.output});
    m.graph = b.finish();
    return m;
  }();
  const OneOp types = [] {
    GraphBuilder b("max types");
    OneOp m;
    const int32_t x = b.add_tensor("a", DataType::kInt8, {2});
    const int32_t y = b.add_tensor("b", DataType::kInt16, {2});
    m.output = b.add_tensor("output", DataType::kInt8, {2});
    m.input = x;
    b.add_op(OpKind::kMinimum, {x, y}, {m.output});
    b.set_inputs({x, y});
    b.set_outputs({m.output});
    m.graph = b.finish();
    return m;
  }();
  const OneOp count = [] {
    GraphBuilder b("max count");
    OneOp m;
    const int32_t x = b.add_tensor("a", DataType::kInt8, {2});
    m.output = b.add_tensor("output", DataType::kInt8, {2});
    m.input = x;
    b.add_op(OpKind::kMaximum, {x}, {m.output});
    b.set_inputs({x});
    b.set_outputs({m.output});
    m.graph = b.finish();
    return m;
  }();
  for (KernelFamily family : kCmsisFamilies) {
    expect_error(shapes, family, "op 0 (MAXIMUM): input shapes 2x3 and 2x2 do not broadcast to output shape 2x3");
    expect_error(types, family, "op 0 (MINIMUM): input 1 type INT16 differs from output type INT8");
    expect_error(count, family, "op 0 (MAXIMUM): expected 2 input(s), got 1");
  }
}

TEST(CmsisNnMaximumMinimum, SafeOverlapOfEachPath) {
  std::mt19937 rng(13);
  // Element by element, both inputs read just before each store.
  const OneOp same = max_min(OpKind::kMaximum, DataType::kInt8, {2, 8}, {2, 8}, 0);
  // The scalar read once, first: the whole output may cover it.
  const OneOp scalar_first = max_min(OpKind::kMinimum, DataType::kInt8, {1}, {3, 5}, 0);
  const OneOp scalar_other = max_min(OpKind::kMinimum, DataType::kInt8, {1}, {3, 5}, 1);
  // a [2,4,3] against b [4,1]: per pixel, b's element read once, then a's
  // 3 channels; b is read again for the second row.
  const OneOp pixels_a = max_min(OpKind::kMaximum, DataType::kInt8, {2, 4, 3}, {4, 1}, 0);
  const OneOp pixels_b = max_min(OpKind::kMaximum, DataType::kInt8, {2, 4, 3}, {4, 1}, 1);
  for (KernelFamily family : kCmsisFamilies) {
    const std::string name(kernel_family_name(family));
    EXPECT_EQ(expect_tight_overlap(same, family, graph_input_bytes(same, rng), "same " + name), 16);
    EXPECT_EQ(expect_tight_overlap(scalar_first, family, graph_input_bytes(scalar_first, rng), "scalar " + name), 15);
    EXPECT_EQ(expect_tight_overlap(scalar_other, family, graph_input_bytes(scalar_other, rng), "other " + name), 15);
    EXPECT_EQ(expect_tight_overlap(pixels_a, family, graph_input_bytes(pixels_a, rng), "pixels a " + name), 24);
    EXPECT_EQ(expect_tight_overlap(pixels_b, family, graph_input_bytes(pixels_b, rng), "pixels b " + name), 6);
  }
  EXPECT_EQ(addresses(same, KernelFamily::kTflmReference).safe_overlap(), 16);
  // TFLM's reference reads the scalar again for every output element, so
  // the output may only cover it with its last byte.
  EXPECT_EQ(addresses(scalar_first, KernelFamily::kTflmReference).safe_overlap(), 1);
  EXPECT_EQ(addresses(scalar_other, KernelFamily::kTflmReference).safe_overlap(), 15);
  EXPECT_EQ(addresses(pixels_a, KernelFamily::kTflmReference).safe_overlap(), 24);
  // The reference reads b's element again for each of the pixel's channels.
  EXPECT_EQ(addresses(pixels_b, KernelFamily::kTflmReference).safe_overlap(), 4);
}

// ------------------------------------------------------------- random shapes

Shape random_shape(std::mt19937& rng, size_t rank, int32_t max_dim) {
  std::uniform_int_distribution<int32_t> dim(1, max_dim);
  Shape s(rank);
  for (int32_t& d : s) d = dim(rng);
  return s;
}

TEST(CmsisNnPadTransposeMaxMin, RandomShapesKeepTheirSafeOverlaps) {
  std::mt19937 rng(2024);
  auto pick = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int checked = 0, refused = 0;
  for (int trial = 0; trial < 360; ++trial) {
    const KernelFamily family = kCmsisFamilies[static_cast<size_t>(trial % 2)];
    std::string what = std::string(kernel_family_name(family)) + " trial " + std::to_string(trial);
    switch ((trial / 2) % 3) {
      case 0: {  // PAD: rows copied whole or pixel by pixel, 1 to 4 dimensions
        const size_t rank = static_cast<size_t>(pick(1, 4));
        const Shape in = random_shape(rng, rank, 4);
        std::vector<int32_t> paddings;
        const bool pad_channels = pick(0, 1) == 1;
        for (size_t d = 0; d < rank; ++d) {
          const bool channel = d + 1 == rank;
          paddings.push_back(channel && !pad_channels ? 0 : pick(0, 2));
          paddings.push_back(channel && !pad_channels ? 0 : pick(0, 2));
        }
        const OneOp m = pad(DataType::kInt8, in, paddings, pick(0, 1) ? std::optional<int8_t>(int8_t{-9}) : std::nullopt);
        what += fmt::format(" pad {}", shape_to_string(in));
        expect_copy_overlap(m, family, graph_input_bytes(m, rng), what);
        break;
      }
      case 1: {  // TRANSPOSE of 2 to 4 axes, any permutation
        const size_t rank = static_cast<size_t>(pick(2, 4));
        const Shape in = random_shape(rng, rank, 5);
        std::vector<int32_t> perm(rank);
        std::iota(perm.begin(), perm.end(), 0);
        std::shuffle(perm.begin(), perm.end(), rng);
        const OneOp m = transpose(DataType::kInt8, in, perm);
        what += fmt::format(" transpose {}", shape_to_string(in));
        if (rank == 2 && perm[0] == 0 && in[0] > 1 && in[1] > 1) {
          EXPECT_NE(run_error(m, family).find("although perm is the identity"), std::string::npos) << what;
          ++refused;
          break;
        }
        expect_tight_overlap(m, family, graph_input_bytes(m, rng), what);
        break;
      }
      default: {  // MAXIMUM / MINIMUM: equal shapes, a scalar, broadcasts of up to 4 dimensions
        const size_t rank = static_cast<size_t>(pick(1, 4));
        const Shape out = random_shape(rng, rank, 4);
        Shape a = out, b = out;
        const int kind_of_shapes = pick(0, 3);
        for (size_t d = 0; d < rank; ++d) {
          if (kind_of_shapes == 0) break;  // equal shapes
          if (kind_of_shapes == 1) {
            b[d] = 1;  // b a one-element tensor
            continue;
          }
          if (pick(0, 2) == 0) a[d] = 1;
          if (pick(0, 2) == 0) b[d] = 1;
        }
        if (kind_of_shapes >= 2 && pick(0, 1) == 1) b.erase(b.begin(), b.begin() + pick(0, static_cast<int>(rank) - 1));
        const OpKind kind = pick(0, 1) ? OpKind::kMaximum : OpKind::kMinimum;
        const OneOp m = max_min(kind, DataType::kInt8, a, b, pick(0, 1));
        what += fmt::format(" {} {} vs {}", builtin_op_name(static_cast<int32_t>(kind)), shape_to_string(a),
                            shape_to_string(b));
        const bool misaddressed = cmsis_nn_misaddresses(a, b);
        const std::string error = run_error(m, family);
        EXPECT_EQ(error.find("mis-addresses the broadcast") != std::string::npos, misaddressed) << what << ": " << error;
        if (misaddressed) {
          ++refused;
          break;
        }
        expect_tight_overlap(m, family, graph_input_bytes(m, rng), what);
        break;
      }
    }
    ++checked;
  }
  EXPECT_GT(checked - refused, 300);
  EXPECT_GT(refused, 0);
}

// ------------------------------------------------------------- shared models

bool is_this_files_kind(int32_t builtin_code) {
  switch (static_cast<OpKind>(builtin_code)) {
    case OpKind::kPad:
    case OpKind::kPadV2:
    case OpKind::kTranspose:
    case OpKind::kMaximum:
    case OpKind::kMinimum: return true;
    default: return false;
  }
}

// PAD or PADV2 op `o` of `main` alone in a graph (its shapes, paddings and
// pad value; this file's quantization); none when its paddings or pad value
// are not constant int32 and int8 data.
std::optional<OneOp> pad_alone(const Subgraph& main, const Op& o) {
  const bool v2 = o.builtin_code == static_cast<int32_t>(OpKind::kPadV2);
  if (!v2 && o.builtin_code != static_cast<int32_t>(OpKind::kPad)) return std::nullopt;
  const auto constant = [&](size_t i, DataType type) -> const Tensor* {
    if (o.inputs.size() <= i || o.inputs[i] < 0) return nullptr;
    const Tensor& t = main.tensors[static_cast<size_t>(o.inputs[i])];
    return t.is_constant && t.type == type ? &t : nullptr;
  };
  const Tensor* paddings = constant(1, DataType::kInt32);
  const Tensor* value = v2 ? constant(2, DataType::kInt8) : nullptr;
  if (paddings == nullptr || (v2 && value == nullptr)) return std::nullopt;
  const Shape& in = main.tensors[static_cast<size_t>(o.inputs[0])].shape;
  return pad(DataType::kInt8, in, values_from<int32_t>(paddings->data),
             v2 ? std::optional<int8_t>(values_from<int8_t>(value->data).at(0)) : std::nullopt);
}

// Every int8 op of these kinds in the shared models prepares under both
// cmsis families (none is a shape dmo refuses), computes the reference
// kernel's bytes on random inputs, and gets an O_s: for PAD its memcpy's in
// their worst order (checked on the op alone), the scatter's own for
// TRANSPOSE.
TEST(CmsisNnPadTransposeSharedModels, OpsComputeTheReferenceBytesWithTheirSafeOverlaps) {
  DMO_REQUIRE_SHARED(shared);
  std::mt19937 rng(17);
  int cmsis_ops = 0;
  for (const std::string& path : test::tflite_files_in(shared + "/models")) {
    Graph graph;
    try {
      graph = read_tflite_file(path);
    } catch (const Error&) {
      continue;  // files dmo refuses are tested elsewhere
    }
    const Subgraph& main = graph.main();
    std::vector<int32_t> ops;
    for (size_t op = 0; op < main.ops.size(); ++op) {
      const Op& o = main.ops[op];
      if (!is_this_files_kind(o.builtin_code) || o.inputs.empty() || o.inputs[0] < 0) continue;
      if (main.tensors[static_cast<size_t>(o.inputs[0])].type != DataType::kInt8) continue;
      ops.push_back(static_cast<int32_t>(op));
    }
    if (ops.empty()) continue;
    const std::string model = path.substr(path.find_last_of('/') + 1);
    bool runs = true;
    for (KernelFamily family : kCmsisFamilies) {
      Schedule schedule = default_schedule(graph);
      schedule.kernels = family;
      try {
        const Interpreter interpreter(graph, unshared_placement(main), schedule);
        for (int32_t op : ops) EXPECT_FALSE(interpreter.prepared(op).implementation.empty()) << model << " op " << op;
      } catch (const Error& e) {
        // A model with an op dmo has no kernel for cannot run; any other refusal fails.
        EXPECT_TRUE(test::missing_kernel(e.what()).has_value()) << model << ": " << e.what();
        runs = false;
      }
    }
    if (runs) {
      const Interpreter sizing(graph, unshared_placement(main));
      const std::vector<uint8_t> input = random_bytes(rng, sizing.input_bytes());
      auto run_all = [&](KernelFamily family) {
        Schedule schedule = default_schedule(graph);
        schedule.kernels = family;
        Interpreter interpreter(graph, unshared_placement(main), schedule);
        interpreter.set_inputs(input);
        interpreter.run();
        std::vector<std::vector<uint8_t>> tensors;
        for (int32_t op : ops) tensors.push_back(interpreter.tensor_contents(main.ops[static_cast<size_t>(op)].outputs[0]));
        return tensors;
      };
      const auto reference = run_all(KernelFamily::kTflmReference);
      for (KernelFamily family : kCmsisFamilies) {
        EXPECT_EQ(run_all(family), reference) << model << " in " << kernel_family_name(family);
      }
    }
    for (int32_t op : ops) {
      const Op& o = main.ops[static_cast<size_t>(op)];
      const bool binary = o.builtin_code == static_cast<int32_t>(OpKind::kMaximum) ||
                          o.builtin_code == static_cast<int32_t>(OpKind::kMinimum);
      for (size_t i = 0; i < (binary ? 2u : 1u); ++i) {
        const int32_t in = o.inputs[i];
        if (in < 0 || main.tensors[static_cast<size_t>(in)].is_constant) continue;
        const int64_t os_reference = algorithmic_safe_overlap(graph, op, in, o.outputs[0]);
        std::array<int64_t, 2> os{};
        for (size_t f = 0; f < kCmsisFamilies.size(); ++f) {
          os[f] = algorithmic_safe_overlap(graph, op, in, o.outputs[0], false, kCmsisFamilies[f]);
          if (const std::optional<OneOp> alone = pad_alone(main, o)) {
            // arm_pad_s8's memcpy in its worst order: the same op alone
            // gets the model op's O_s, clean there, a clobber a byte beyond.
            EXPECT_EQ(expect_copy_overlap(*alone, kCmsisFamilies[f], graph_input_bytes(*alone, rng),
                                          model + " op " + std::to_string(op)),
                      os[f]);
          }
        }
        EXPECT_EQ(os[0], os[1]) << model << " op " << op << ": the two families share one order";
        std::printf("[ O_s      ] %s op %d %s input %zu: tflm-reference %lld, cmsis-nn %lld, cmsis-nn-dsp %lld\n",
                    model.c_str(), op, builtin_op_name(o.builtin_code).c_str(), i,
                    static_cast<long long>(os_reference), static_cast<long long>(os[0]),
                    static_cast<long long>(os[1]));
      }
      ++cmsis_ops;
    }
  }
  EXPECT_GT(cmsis_ops, 0);
}

}  // namespace
}  // namespace dmo

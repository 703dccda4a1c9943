// The bottom-up safe overlap (dmo trace): the streaming lackey reader and its
// O_s, ascending and descending, on synthetic event streams (equal to
// AddressMemory, plain and mirrored, on the same sequences), the picture,
// the graph bundle, the C header; then, under valgrind, every kernel dmo has
// (compiled without auto-vectorisation: equal to the algorithmic O_s; as
// built: recorded against it), the windowed kernels walking descending, two
// kernels dmo did not derive from TFLite's loop order, and the command line.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "dmo/error.h"
#include "dmo/ops/kernels.h"
#include "dmo/ops/walk_order.h"
#include "dmo/overlap/overlap_candidates.h"
#include "dmo/runtime/input_pattern.h"
#include "dmo/runtime/interpreter.h"
#include "dmo/ops/memory_policy.h"
#include "dmo/tflite/reader.h"
#include "dmo/trace/access_svg.h"
#include "dmo/trace/graph_bundle.h"
#include "dmo/trace/lackey_trace.h"
#include "dmo/trace/valgrind_runner.h"
#include "test_build.h"
#include "test_support.h"
#include "trace_programs/custom_kernels.h"
#include "trace_programs/kernel_configs.h"

namespace dmo {
namespace {

// ------------------------------------------------------------ synthetic streams

constexpr uint64_t kInputBase = 0x10000, kOutputBase = 0x40000, kOtherBase = 0x90000;

// A kernel's accesses played two ways: to AddressMemory (typed element
// accesses; plain and mirrored, for both O_s) and as the lackey log the same
// accesses would give.
class Script {
 public:
  Script(int64_t input_bytes, int64_t output_bytes)
      : input_bytes_(input_bytes),
        output_bytes_(output_bytes),
        memory_(kInputTensor, kOutputTensor, input_bytes, output_bytes),
        mirrored_(kInputTensor, kOutputTensor, input_bytes, output_bytes, true) {
    input_.index = kInputTensor;
    output_.index = kOutputTensor;
    output_.is_output = true;
    other_.index = kOtherTensor;
  }

  // Element `element` of `width` bytes: byte offset element * width.
  void load_input(int64_t element, int width) { access(input_, 'L', kInputBase, element, width); }
  void store_output(int64_t element, int width) { access(output_, 'S', kOutputBase, element, width); }
  void load_other(int64_t element, int width) { access(other_, 'L', kOtherBase, element, width); }
  void store_other(int64_t element, int width) { access(other_, 'S', kOtherBase, element, width); }
  // A load of the output and a store into the input: neither counts.
  void load_output(int64_t element, int width) { access(output_, 'L', kOutputBase, element, width); }
  void store_input(int64_t element, int width) {
    // AddressMemory sees a store to a tensor that is not the output.
    TensorRef as_input = input_;
    play_store(as_input, element, width);
    line('S', kInputBase + static_cast<uint64_t>(element * width), width);
  }
  // Text only: what AddressMemory cannot express.
  void raw(char kind, uint64_t address, int size) { line(kind, address, size); }

  std::string log(const std::string& name = "layer") const {
    return fmt::format("==1== Command: test\n**1** DMO_TRACE_BEGIN {:x} {} {:x} {} {}\n{}**1** DMO_TRACE_END {}\n",
                       kInputBase, input_bytes_, kOutputBase, output_bytes_, name, body_, name);
  }
  int64_t address_memory_overlap() const { return memory_.safe_overlap(); }
  int64_t address_memory_overlap_descending() const { return mirrored_.safe_overlap(); }
  int64_t output_bytes() const { return output_bytes_; }

 private:
  static constexpr int32_t kInputTensor = 0, kOutputTensor = 1, kOtherTensor = 2;

  void access(TensorRef& t, char kind, uint64_t base, int64_t element, int width) {
    if (kind == 'L')
      play_load(t, element, width);
    else
      play_store(t, element, width);
    line(kind, base + static_cast<uint64_t>(element * width), width);
  }
  void play_load(const TensorRef& t, int64_t element, int width) {
    for (AddressMemory* m : {&memory_, &mirrored_}) {
      switch (width) {
        case 1:
          m->load<uint8_t>(t, element);
          break;
        case 2:
          m->load<uint16_t>(t, element);
          break;
        case 4:
          m->load<uint32_t>(t, element);
          break;
        default:
          m->load<uint64_t>(t, element);
          break;
      }
    }
  }
  void play_store(const TensorRef& t, int64_t element, int width) {
    for (AddressMemory* m : {&memory_, &mirrored_}) {
      switch (width) {
        case 1:
          m->store<uint8_t>(t, element, 0);
          break;
        case 2:
          m->store<uint16_t>(t, element, 0);
          break;
        case 4:
          m->store<uint32_t>(t, element, 0);
          break;
        default:
          m->store<uint64_t>(t, element, 0);
          break;
      }
    }
  }
  void line(char kind, uint64_t address, int size) {
    body_ += fmt::format("I  {:08x},4\n {} {:08x},{}\n", 0x400000 + instructions_++ * 4, kind, address, size);
  }

  int64_t input_bytes_, output_bytes_;
  AddressMemory memory_, mirrored_;  // mirrored_: the descending O_s
  TensorRef input_, output_, other_;
  std::string body_;
  int64_t instructions_ = 0;
};

LackeyTraceReader read_log(const std::string& log, size_t chunk = 0, LackeyTraceOptions options = {}) {
  LackeyTraceReader reader(std::move(options));
  if (chunk == 0) chunk = log.size() + 1;
  for (size_t at = 0; at < log.size(); at += chunk) reader.feed(std::string_view(log).substr(at, chunk));
  reader.finish();
  return reader;
}

int64_t traced_overlap(const Script& s) {
  LackeyTraceReader reader = read_log(s.log());
  EXPECT_EQ(reader.layers().size(), 1u);
  return reader.layers().empty() ? -1 : reader.layers()[0].safe_overlap;
}

int64_t traced_overlap_descending(const Script& s) {
  LackeyTraceReader reader = read_log(s.log());
  EXPECT_EQ(reader.layers().size(), 1u);
  return reader.layers().empty() ? -1 : reader.layers()[0].safe_overlap_descending;
}

using test::error_of;

TEST(TraceStream, ElementwiseInPlaceGivesTheWholeOutput) {
  Script s(64, 64);
  for (int i = 0; i < 16; ++i) {
    s.load_input(i, 4);
    s.store_output(i, 4);
  }
  EXPECT_EQ(s.address_memory_overlap(), 64);
  EXPECT_EQ(traced_overlap(s), 64);
}

TEST(TraceStream, ReadAheadKeepsTheWholeOutputAndReadBehindLosesAnElement) {
  Script ahead(64, 60), behind(64, 64);
  for (int i = 0; i < 15; ++i) {  // out[i] = in[i] + in[i + 1]
    ahead.load_input(i, 4);
    ahead.load_input(i + 1, 4);
    ahead.store_output(i, 4);
  }
  for (int i = 0; i < 16; ++i) {  // out[i] = in[i - 1] + in[i]
    if (i > 0) behind.load_input(i - 1, 4);
    behind.load_input(i, 4);
    behind.store_output(i, 4);
  }
  EXPECT_EQ(ahead.address_memory_overlap(), 60);
  EXPECT_EQ(traced_overlap(ahead), 60);
  EXPECT_EQ(behind.address_memory_overlap(), 60);
  EXPECT_EQ(traced_overlap(behind), 60);
}

TEST(TraceStream, MatrixVectorKeepsOnlyTheLastOutputElement) {
  // out[j] = sum_k in[k] * w[j][k]: every output reads the whole input again.
  const int depth = 8, units = 5;
  Script s(depth * 4, units * 4);
  for (int j = 0; j < units; ++j) {
    for (int k = 0; k < depth; ++k) {
      s.load_input(k, 4);
      s.load_other(j * depth + k, 4);
    }
    s.store_output(j, 4);
  }
  EXPECT_EQ(s.address_memory_overlap(), 4);
  EXPECT_EQ(traced_overlap(s), 4);
}

TEST(TraceStream, WiderOutputsThanInputs) {
  // A dequantize: int8 in, float out; output i ends at byte 4i+3, input i+1 is read next.
  const int n = 10;
  Script s(n, 4 * n);
  for (int i = 0; i < n; ++i) {
    s.load_input(i, 1);
    s.store_output(i, 4);
  }
  EXPECT_EQ(s.address_memory_overlap(), n + 3);
  EXPECT_EQ(traced_overlap(s), n + 3);
}

TEST(TraceStream, VectorAccessesAndPartialOverlapsCountOnlyTheirBytesInside) {
  Script s(64, 64);
  // A 16-byte store straddling the output's end counts up to its last byte (63).
  s.raw('S', kOutputBase + 56, 16);
  // A 16-byte load straddling the input's start reads from input byte 0.
  s.raw('L', kInputBase - 8, 16);
  EXPECT_EQ(traced_overlap(s), 0);  // 63 - 0 + 1 = 64: no overlap at all

  Script t(64, 64);
  t.raw('S', kOutputBase - 8, 16);  // output bytes 0..7
  t.raw('L', kInputBase + 4, 16);   // input bytes 4..19: delta 7 - 4 + 1 = 4
  t.raw('L', kInputBase + 60, 16);  // reaches past the input: lowest byte 60
  EXPECT_EQ(traced_overlap(t), 60);
  // Accesses that only touch the bytes around the buffers do not count.
  Script u(64, 64);
  u.raw('S', kOutputBase + 64, 4);
  u.raw('S', kOutputBase - 4, 4);
  u.raw('L', kInputBase - 4, 4);
  u.raw('L', kInputBase + 64, 8);
  LackeyTraceReader reader = read_log(u.log());
  EXPECT_EQ(reader.layers()[0].events(), 0);
  EXPECT_EQ(reader.layers()[0].safe_overlap, 64);
}

TEST(TraceStream, ModifyIsALoadThenAStore) {
  // In place (input == output buffer), increasing: each byte is read then written.
  std::string up = "**1** DMO_TRACE_BEGIN 1000 16 1000 16 up\n";
  std::string down = "**1** DMO_TRACE_BEGIN 1000 16 1000 16 down\n";
  for (int i = 0; i < 4; ++i) {
    up += fmt::format(" M {:x},4\n", 0x1000 + 4 * i);
    down += fmt::format(" M {:x},4\n", 0x1000 + 12 - 4 * i);
  }
  up += "**1** DMO_TRACE_END up\n";
  down += "**1** DMO_TRACE_END down\n";
  LackeyTraceReader reader = read_log(up + down);
  ASSERT_EQ(reader.layers().size(), 2u);
  EXPECT_EQ(reader.layers()[0].safe_overlap, 16);
  EXPECT_EQ(reader.layers()[0].loads, 4);
  EXPECT_EQ(reader.layers()[0].stores, 4);
  // Decreasing: after writing bytes 12..15, byte 0 is still to be read: delta 15 - 0 + 1.
  EXPECT_EQ(reader.layers()[1].safe_overlap, 0);
  // Mirrored, the other way round: increasing, after writing bytes 0..3
  // bytes up to 15 are still to be read; decreasing is in place.
  EXPECT_EQ(reader.layers()[0].safe_overlap_descending, 0);
  EXPECT_EQ(reader.layers()[1].safe_overlap_descending, 16);

  // With separate buffers, a modify of the output is a store, of the input a load.
  Script s(16, 16);
  s.raw('M', kOutputBase + 8, 4);  // output bytes up to 11
  s.raw('M', kInputBase + 4, 4);   // input byte 4: delta 11 - 4 + 1 = 8
  EXPECT_EQ(traced_overlap(s), 8);
}

TEST(TraceStream, EventsOutsideTheBuffersAreIgnored) {
  Script s(32, 32);
  for (int i = 0; i < 8; ++i) {
    s.load_other(100 + i, 4);   // weights
    s.store_other(200 + i, 8);  // the stack
    s.load_input(i, 4);
    s.load_output(i, 4);  // reading the output does not count as reading the input
    s.store_input(i, 4);  // nor writing the input as writing the output
    s.store_output(i, 4);
  }
  s.load_output(0, 4);
  EXPECT_EQ(s.address_memory_overlap(), 32);
  EXPECT_EQ(traced_overlap(s), 32);
  LackeyTraceReader reader = read_log(s.log());
  EXPECT_EQ(reader.layers()[0].loads, 8);
  EXPECT_EQ(reader.layers()[0].stores, 8);
}

TEST(TraceStream, NoLoadAfterAStoreGivesTheWholeOutput) {
  Script s(16, 8);
  for (int i = 0; i < 4; ++i) s.load_input(i, 4);
  for (int i = 0; i < 2; ++i) s.store_output(i, 4);
  EXPECT_EQ(s.address_memory_overlap(), 8);
  EXPECT_EQ(traced_overlap(s), 8);
}

TEST(TraceStream, RandomStreamsEqualAddressMemory) {
  std::mt19937 gen(7);
  for (int trial = 0; trial < 300; ++trial) {
    const int width = 1 << std::uniform_int_distribution<int>(0, 3)(gen);
    const int in_elements = std::uniform_int_distribution<int>(1, 40)(gen);
    const int out_elements = std::uniform_int_distribution<int>(1, 40)(gen);
    Script s(int64_t{in_elements} * width, int64_t{out_elements} * width);
    const int events = std::uniform_int_distribution<int>(0, 60)(gen);
    for (int e = 0; e < events; ++e) {
      switch (std::uniform_int_distribution<int>(0, 4)(gen)) {
        case 0:
        case 1:
          s.load_input(std::uniform_int_distribution<int>(0, in_elements - 1)(gen), width);
          break;
        case 2:
        case 3:
          s.store_output(std::uniform_int_distribution<int>(0, out_elements - 1)(gen), width);
          break;
        default:
          s.load_other(std::uniform_int_distribution<int>(0, 9)(gen), width);
          break;
      }
    }
    ASSERT_EQ(traced_overlap(s), s.address_memory_overlap()) << "trial " << trial;
    ASSERT_EQ(traced_overlap_descending(s), s.address_memory_overlap_descending()) << "trial " << trial;
  }
}

// The descending O_s: the output above the input, the input's end under the
// output's start. Mirrored, a walk from the last element down is the
// ascending walk of the tests above.

TEST(TraceStreamDescending, AscendingElementwiseGivesNothingAndDescendingTheWholeOutput) {
  Script up(64, 64), down(64, 64);
  for (int i = 0; i < 16; ++i) {
    up.load_input(i, 4);
    up.store_output(i, 4);
    down.load_input(15 - i, 4);
    down.store_output(15 - i, 4);
  }
  // Ascending, mirrored: after out[14] (mirrored highest written byte 63,
  // from out[0]) in[15] is read (mirrored lowest byte 0): delta 64.
  EXPECT_EQ(up.address_memory_overlap_descending(), 0);
  EXPECT_EQ(traced_overlap_descending(up), 0);
  EXPECT_EQ(traced_overlap(up), 64);
  // Descending: in[i - 1] ends 1 byte below out[i]'s start, which is the
  // lowest written so far: delta 0.
  EXPECT_EQ(down.address_memory_overlap_descending(), 64);
  EXPECT_EQ(traced_overlap_descending(down), 64);
  EXPECT_EQ(traced_overlap(down), 0);
}

TEST(TraceStreamDescending, ReadAheadKeepsTheWholeOutputAndReadBehindLosesAnElement) {
  // Walking down, "ahead" is the lower element. The descending delta of a
  // load after stores is |O| - |I| + (highest input byte of the load) -
  // (lowest output byte written so far) + 1.
  Script ahead(64, 64), behind(64, 64);
  for (int i = 15; i >= 0; --i) {  // out[i] = in[i] + in[i - 1]
    ahead.load_input(i, 4);
    if (i > 0) ahead.load_input(i - 1, 4);
    ahead.store_output(i, 4);
  }
  for (int i = 15; i >= 0; --i) {  // out[i] = in[i] + in[i + 1]
    if (i < 15) behind.load_input(i + 1, 4);
    behind.load_input(i, 4);
    behind.store_output(i, 4);
  }
  // ahead: in[i] (up to byte 4i + 3) after out[i + 1] (from byte 4i + 4): delta 0.
  EXPECT_EQ(ahead.address_memory_overlap_descending(), 64);
  EXPECT_EQ(traced_overlap_descending(ahead), 64);
  // behind: in[i + 1] (up to byte 4i + 7) after out[i + 1]: delta 4.
  EXPECT_EQ(behind.address_memory_overlap_descending(), 60);
  EXPECT_EQ(traced_overlap_descending(behind), 60);
}

TEST(TraceStreamDescending, MatrixVectorKeepsOnlyTheFirstOutputElementWalkingDown) {
  const int depth = 8, units = 5;
  Script up(depth * 4, units * 4), down(depth * 4, units * 4);
  for (int j = 0; j < units; ++j) {
    for (int k = 0; k < depth; ++k) {
      up.load_input(k, 4);
      down.load_input(k, 4);
    }
    up.store_output(j, 4);
    down.store_output(units - 1 - j, 4);
  }
  // down: after out[1] (from byte 4) the whole input (up to byte 31) is read
  // again: delta 20 - 32 + 31 - 4 + 1 = 16, O_s 4.
  EXPECT_EQ(down.address_memory_overlap_descending(), 4);
  EXPECT_EQ(traced_overlap_descending(down), 4);
  // up: out[0] is written first, so every later reread spans it: delta 20.
  EXPECT_EQ(up.address_memory_overlap_descending(), 0);
  EXPECT_EQ(traced_overlap_descending(up), 0);
}

TEST(TraceStreamDescending, WiderOutputsThanInputs) {
  // int8 in, float out, walking down: after out[i] (from byte 4i), in[i - 1]
  // (byte i - 1): delta 3n + (i - 1) - 4i + 1 = 3n - 3i, largest at i = 1.
  const int n = 10;
  Script s(n, 4 * n);
  for (int i = n - 1; i >= 0; --i) {
    s.load_input(i, 1);
    s.store_output(i, 4);
  }
  EXPECT_EQ(s.address_memory_overlap_descending(), n + 3);
  EXPECT_EQ(traced_overlap_descending(s), n + 3);
}

TEST(TraceStreamDescending, PartialOverlapsCountOnlyTheirBytesInside) {
  // A store straddling the output's start counts from output byte 0; a load
  // straddling the input's end up to input byte 63.
  Script a(64, 64);
  a.raw('S', kOutputBase - 8, 16);
  a.raw('L', kInputBase + 60, 16);
  EXPECT_EQ(traced_overlap_descending(a), 0);  // 63 - 0 + 1 = 64
  Script b(64, 64);
  b.raw('S', kOutputBase - 8, 16);
  b.raw('L', kInputBase, 4);  // input bytes 0..3: delta 4
  EXPECT_EQ(traced_overlap_descending(b), 60);
  Script c(64, 64);
  c.raw('S', kOutputBase + 56, 16);  // output bytes 56..63
  c.raw('L', kInputBase + 56, 16);   // input bytes 56..63: delta 8, not 16
  EXPECT_EQ(traced_overlap_descending(c), 56);
  // Accesses just outside the buffers do not count.
  Script d(64, 64);
  d.raw('S', kOutputBase - 4, 4);
  d.raw('L', kInputBase + 64, 8);
  EXPECT_EQ(traced_overlap_descending(d), 64);
}

TEST(TraceStreamDescending, NoLoadAfterAStoreKeepsTheWholeOutput) {
  Script s(16, 8);
  for (int i = 0; i < 4; ++i) s.load_input(i, 4);
  for (int i = 0; i < 2; ++i) s.store_output(i, 4);
  EXPECT_EQ(s.address_memory_overlap_descending(), 8);
  EXPECT_EQ(traced_overlap_descending(s), 8);
}

TEST(TraceStream, MarkersNameLayersCountInstructionsAndSurviveAnyChunking) {
  Script a(8, 8), b(12, 4);
  a.load_input(0, 4);
  a.store_output(0, 4);
  a.load_input(1, 4);
  a.store_output(1, 4);
  b.store_output(0, 4);
  b.load_input(0, 4);
  std::string log = a.log("conv 1 with spaces") + "I  00400000,4\n L 00010000,4\n" + b.log("second");
  for (size_t chunk : {0, 1, 2, 3, 7, 64}) {
    LackeyTraceReader reader = read_log(log, chunk);
    ASSERT_EQ(reader.layers().size(), 2u) << chunk;
    EXPECT_EQ(reader.layers()[0].name, "conv 1 with spaces");
    EXPECT_EQ(reader.layers()[0].instructions, 4);
    EXPECT_EQ(reader.layers()[0].events(), 4);
    EXPECT_EQ(reader.layers()[0].input.begin, kInputBase);
    EXPECT_EQ(reader.layers()[0].output.bytes, 8u);
    EXPECT_EQ(reader.layers()[0].safe_overlap, 8);
    EXPECT_EQ(reader.layers()[1].name, "second");
    EXPECT_EQ(reader.layers()[1].safe_overlap, 0);  // 3 - 0 + 1 = 4 = |O|
    EXPECT_EQ(reader.instructions(), 7);
    EXPECT_EQ(reader.memory_events(), 7);
  }
}

TEST(TraceStream, MisusedMarkersAreErrorsNamingTheLayer) {
  const std::string begin = "**1** DMO_TRACE_BEGIN 1000 4 2000 4 ";
  std::string e = error_of([&] { read_log(begin + "outer\n" + begin + "inner\n"); });
  EXPECT_NE(e.find("'inner' begins inside layer 'outer'"), std::string::npos) << e;
  e = error_of([&] { read_log(begin + "open\n I 1000,4\n"); });
  EXPECT_NE(e.find("'open' never ends"), std::string::npos) << e;
  e = error_of([&] { read_log("**1** DMO_TRACE_END lonely\n"); });
  EXPECT_NE(e.find("'lonely' ends but never began"), std::string::npos) << e;
  e = error_of([&] { read_log(begin + "a\n**1** DMO_TRACE_END b\n"); });
  EXPECT_NE(e.find("'b' ends while layer 'a' is open"), std::string::npos) << e;
  e = error_of([&] { read_log("**1** DMO_TRACE_BEGIN zz 4 2000 4 bad\n"); });
  EXPECT_NE(e.find("malformed layer marker"), std::string::npos) << e;
  // Sizes no tensor can have, and buffers that run past the top of the
  // address space, would overflow the overlap arithmetic: refused by name.
  e = error_of([&] { read_log("**1** DMO_TRACE_BEGIN 1000 12297829382473034409 2000 4 huge\n L 1000,4\n"); });
  EXPECT_NE(e.find("layer 'huge' has an input of 12297829382473034409 bytes"), std::string::npos) << e;
  e = error_of([&] { read_log("**1** DMO_TRACE_BEGIN 1000 4 fffffffffffffff0 32 wraps\n"); });
  EXPECT_NE(e.find("layer 'wraps' has an output of 32 bytes at 0xfffffffffffffff0"), std::string::npos) << e;
  // A closed log with no layer is no error.
  EXPECT_TRUE(read_log("I  00001000,4\n L 00002000,4\n").layers().empty());
}

TEST(TraceStream, KeepsValgrindsMessagesAboutTheRunNotItsBanner) {
  LackeyTraceReader reader = read_log(
      "==7== Lackey, an example Valgrind tool\n==7== Command: prog\n==7== \n"
      "==7== Process terminating with default action of signal 11 (SIGSEGV)\n==7== Counted 1 call to main()\n");
  EXPECT_EQ(reader.recent_messages(), "==7== Process terminating with default action of signal 11 (SIGSEGV)\n");
}

TEST(TraceStream, TheCommandLineReadsASavedLog) {
  Script s(16, 16);
  for (int i = 0; i < 4; ++i) {
    s.store_output(3 - i, 4);  // backwards: after writing bytes 12..15, byte 0 is still to be read
    s.load_input(3 - i, 4);
  }
  const std::string path =
      (std::filesystem::temp_directory_path() / fmt::format("dmo_trace_{}.log", ::getpid())).string();
  std::ofstream(path) << s.log("backwards copy");
  auto r = test::run_dmo({"trace", "--json", "--log", path});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["layers"].size(), 1u);
  EXPECT_EQ(j["layers"][0]["name"], "backwards copy");
  EXPECT_EQ(j["layers"][0]["events"], 8);
  EXPECT_EQ(j["layers"][0]["instructions"], 8);
  EXPECT_EQ(j["layers"][0]["safe_overlap_bytes"], s.address_memory_overlap());
  // Walking down, each element is read 4 bytes above the lowest written: 12.
  EXPECT_EQ(j["layers"][0]["safe_overlap_descending_bytes"], s.address_memory_overlap_descending());
  EXPECT_EQ(s.address_memory_overlap_descending(), 12);
  EXPECT_FALSE(j["layers"][0].contains("walk"));  // only for ops traced with --model
  EXPECT_EQ(j["trace"]["memory_events"], 8);
  r = test::run_dmo({"trace", "--log", path});
  EXPECT_EQ(r.exit_status, 0);
  EXPECT_NE(r.out.find("backwards copy"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("O_s desc."), std::string::npos) << r.out;
  r = test::run_dmo({"trace", "--log", path, "--descending"});
  EXPECT_EQ(r.exit_status, 2);
  EXPECT_NE(r.err.find("--descending go with --model"), std::string::npos) << r.err;
  r = test::run_dmo({"trace", "--log", path, "--svg", path + ".svg", "--layer", "nope"});
  EXPECT_EQ(r.exit_status, 2);
  EXPECT_NE(r.err.find("no layer named 'nope'"), std::string::npos) << r.err;
  std::filesystem::remove(path);
}

// ------------------------------------------------------------ picture

TEST(AccessPicture, StaysBoundedWithExactFrontiers) {
  // A long layer: 200k reads and writes; the lowest read is 3 at the very end.
  std::string log = "**1** DMO_TRACE_BEGIN 100000 800000 900000 800000 long\n";
  for (int i = 0; i < 200000; ++i) {
    log += fmt::format("I  00400000,4\n L {:x},4\n S {:x},4\n", 0x100000 + 4 * i, 0x900000 + 4 * i);
  }
  log += " L 100003,1\n**1** DMO_TRACE_END long\n";
  LackeyTraceOptions options;
  options.picture = true;
  options.max_points = 1000;
  LackeyTraceReader reader = read_log(log, 65536, options);
  ASSERT_TRUE(reader.picture().has_value());
  const AccessPicture& p = *reader.picture();
  EXPECT_EQ(p.reads, 200001);
  EXPECT_EQ(p.writes, 200000);
  EXPECT_LE(p.read_points.size() + p.write_points.size(), 1000u);
  EXPECT_GE(p.read_points.size(), 250u);
  EXPECT_LE(p.bins.size(), 1024u);
  int64_t lowest = AccessBin::kNoRead, highest = -1;
  for (const auto& b : p.bins) {
    lowest = std::min(lowest, b.min_read);
    highest = std::max(highest, b.max_write);
  }
  EXPECT_EQ(lowest, 0);
  EXPECT_EQ(p.bins.back().min_read, 3);  // the late read of byte 3 is in the last bin
  EXPECT_EQ(highest, 800000 - 1);
  EXPECT_EQ(p.safe_overlap, reader.layers()[0].safe_overlap);
  EXPECT_EQ(p.safe_overlap, 800000 - (799999 - 3 + 1));  // the last write ends at 799999

  const std::string svg = access_picture_svg(p);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("O_s = 3 of 800000 output bytes"), std::string::npos);
  EXPECT_NE(svg.find("maxW - 799997"), std::string::npos);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_LT(svg.size(), 200000u);
}

TEST(AccessPicture, DrawsTheNamedLayerOnly) {
  Script a(8, 8), b(8, 8);
  a.load_input(0, 4);
  b.store_output(1, 4);
  LackeyTraceOptions options;
  options.picture = true;
  options.picture_layer = "b & <c>";
  LackeyTraceReader reader = read_log(a.log("a") + b.log("b & <c>"), 0, options);
  ASSERT_TRUE(reader.picture().has_value());
  EXPECT_EQ(reader.picture()->name, "b & <c>");
  EXPECT_EQ(reader.picture()->writes, 1);
  EXPECT_NE(access_picture_svg(*reader.picture()).find("b &amp; &lt;c&gt;"), std::string::npos);
}

// ------------------------------------------------------------ graph bundle

TEST(GraphBundle, RoundTripsGraphsOfEveryKernel) {
  std::vector<TracedGraph> graphs;
  for (OpKind kind : trace_configs::all_kernel_kinds()) {
    for (auto& c : trace_configs::random_configs(kind, 2, 99)) graphs.push_back({std::move(c.graph), {0}});
  }
  const std::vector<uint8_t> bytes = encode_graph_bundle(graphs);
  const std::vector<TracedGraph> back = decode_graph_bundle(bytes, "bundle");
  ASSERT_EQ(back.size(), graphs.size());
  EXPECT_EQ(encode_graph_bundle(back), bytes);
  for (size_t i = 0; i < graphs.size(); ++i) {
    const Subgraph& a = graphs[i].graph.main();
    const Subgraph& b = back[i].graph.main();
    EXPECT_EQ(back[i].graph.source, graphs[i].graph.source);
    ASSERT_EQ(a.tensors.size(), b.tensors.size());
    for (size_t t = 0; t < a.tensors.size(); ++t) {
      EXPECT_EQ(a.tensors[t].shape, b.tensors[t].shape);
      EXPECT_EQ(a.tensors[t].data, b.tensors[t].data);
      EXPECT_EQ(a.tensors[t].quantization.scale, b.tensors[t].quantization.scale);
      EXPECT_EQ(a.tensors[t].is_variable, b.tensors[t].is_variable);
    }
    EXPECT_EQ(a.ops[0].params.index(), b.ops[0].params.index());
    // The same graph computes the same O_s.
    auto pairs = overlap_candidates(a, false);
    EXPECT_EQ(algorithmic_safe_overlap(graphs[i].graph, 0, pairs[0].input, pairs[0].output),
              algorithmic_safe_overlap(back[i].graph, 0, pairs[0].input, pairs[0].output));
  }
  std::vector<uint8_t> truncated(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(bytes.size() / 2));
  EXPECT_NE(error_of([&] { decode_graph_bundle(truncated, "half.bundle"); }).find("half.bundle: bad graph bundle"),
            std::string::npos);
  EXPECT_NE(error_of([&] { decode_graph_bundle(std::vector<uint8_t>(20, 7), "junk"); }).find("not a dmo graph bundle"),
            std::string::npos);
}

// ------------------------------------------------------------ the C header

TEST(DmoTraceHeader, CompilesAsC99AndAsNothing) {
  if (std::system("command -v cc >/dev/null 2>&1") != 0) GTEST_SKIP() << "no C compiler";
  const auto dir = std::filesystem::temp_directory_path() / fmt::format("dmo_trace_header_{}", ::getpid());
  std::filesystem::create_directories(dir);
  const std::string source = (dir / "use.c").string();
  std::ofstream(source) << "#include \"dmo_trace.h\"\n"
                           "int main(void) {\n  float in[4] = {0}, out[4];\n  int i;\n"
                           "  DMO_TRACE_LAYER_BEGIN(\"relu\", in, sizeof in, out, sizeof out);\n"
                           "  for (i = 0; i < 4; ++i) out[i] = in[i] > 0 ? in[i] : 0;\n"
                           "  DMO_TRACE_LAYER_END(\"relu\");\n  return (int)out[0];\n}\n";
  const std::string include = std::filesystem::path(__FILE__).parent_path().parent_path().string() + "/include";
  for (const char* define : {"", "-DDMO_TRACE_DISABLE"}) {
    const std::string command = fmt::format("cc -std=c99 -Wall -Wextra -Werror -pedantic {} -I'{}' '{}' -o '{}' 2>&1",
                                            define, include, source, (dir / "use").string());
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
    // Outside valgrind the markers do nothing.
    EXPECT_EQ(std::system((dir / "use").c_str()), 0);
  }
  std::filesystem::remove_all(dir);
}

// ------------------------------------------------------------ custom kernels (no valgrind)

using trace_programs::ConvShape;
using trace_programs::MatmulShape;

// Runs `kernel` with AddressMemory for (input, output) and returns O_s.
template <typename Kernel>
int64_t address_overlap(const Tensor& input, const Tensor& output, Kernel kernel) {
  AddressMemory memory(trace_programs::kInput, trace_programs::kOutput, input.byte_size, output.byte_size);
  kernel(memory);
  return memory.safe_overlap();
}

int64_t custom_conv_overlap() {
  const ConvShape s = trace_programs::kConvShape;
  Tensor ti = trace_programs::float_tensor(trace_programs::conv_input_shape(s)),
         tf = trace_programs::float_tensor(trace_programs::conv_filter_shape(s)),
         to = trace_programs::float_tensor(trace_programs::conv_output_shape(s));
  return address_overlap(ti, to, [&](AddressMemory& mem) {
    trace_programs::conv_output_channels_outermost(
        s, trace_programs::ref_to(ti, nullptr, trace_programs::kInput, false, true),
        trace_programs::ref_to(tf, nullptr, trace_programs::kWeights, false, false),
        trace_programs::ref_to(to, nullptr, trace_programs::kOutput, true, true), mem);
  });
}

// O_s of the matmul for input A (a_is_input) or B.
int64_t custom_matmul_overlap(bool a_is_input) {
  const MatmulShape s = trace_programs::kMatmulShape;
  Tensor ta = trace_programs::float_tensor({s.m, s.k}), tb = trace_programs::float_tensor({s.k, s.n}),
         tc = trace_programs::float_tensor({s.m, s.n});
  return address_overlap(a_is_input ? ta : tb, tc, [&](AddressMemory& mem) {
    const int32_t a = a_is_input ? trace_programs::kInput : trace_programs::kWeights;
    const int32_t b = a_is_input ? trace_programs::kWeights : trace_programs::kInput;
    trace_programs::matmul_ijk(s, trace_programs::ref_to(ta, nullptr, a, false, true),
                               trace_programs::ref_to(tb, nullptr, b, false, true),
                               trace_programs::ref_to(tc, nullptr, trace_programs::kOutput, true, true), mem);
  });
}

// dmo's CONV_2D on the custom conv's shapes.
int64_t dmo_conv_overlap() {
  const ConvShape s = trace_programs::kConvShape;
  GraphBuilder b("dmo conv");
  const int32_t input = b.add_tensor("input", DataType::kFloat32, trace_programs::conv_input_shape(s));
  const int32_t filter = b.add_constant_values<float>(
      "filter", DataType::kFloat32, trace_programs::conv_filter_shape(s),
      trace_programs::ramp(s.out_channels * s.kernel_h * s.kernel_w * s.in_channels, 0.25f));
  const int32_t output = b.add_tensor("output", DataType::kFloat32, trace_programs::conv_output_shape(s));
  b.add_op(OpKind::kConv2D, {input, filter}, {output}, Conv2DParams{Padding::kValid, 1, 1, 1, 1, Activation::kNone});
  b.set_inputs({input});
  b.set_outputs({output});
  return algorithmic_safe_overlap(b.finish(), 0, input, output);
}

// Runs the custom conv with the input placed |O| - overlap bytes above the
// output in one arena; whether CheckingMemory saw a clobber, and the output.
std::pair<bool, std::vector<float>> checked_custom_conv(int64_t overlap) {
  const ConvShape s = trace_programs::kConvShape;
  Tensor ti = trace_programs::float_tensor(trace_programs::conv_input_shape(s)),
         tf = trace_programs::float_tensor(trace_programs::conv_filter_shape(s)),
         to = trace_programs::float_tensor(trace_programs::conv_output_shape(s));
  const int64_t input_offset = to.byte_size - overlap;
  std::vector<uint8_t> arena(static_cast<size_t>(std::max(to.byte_size, input_offset + ti.byte_size)), 0);
  std::vector<float> input = trace_programs::ramp(ti.element_count, 0.5f),
                     filter = trace_programs::ramp(tf.element_count, 0.25f);
  std::memcpy(arena.data() + input_offset, input.data(), static_cast<size_t>(ti.byte_size));
  CheckingMemory memory(arena.data(), static_cast<int64_t>(arena.size()));
  memory.begin_op(0);
  trace_programs::conv_output_channels_outermost(
      s, trace_programs::ref_to(ti, arena.data() + input_offset, trace_programs::kInput, false, true),
      trace_programs::ref_to(tf, reinterpret_cast<uint8_t*>(filter.data()), trace_programs::kWeights, false, false),
      trace_programs::ref_to(to, arena.data(), trace_programs::kOutput, true, true), memory);
  std::vector<float> out(static_cast<size_t>(to.element_count));
  std::memcpy(out.data(), arena.data(), static_cast<size_t>(to.byte_size));
  return {memory.clobber().has_value(), out};
}

// The same for the matmul, the input (A or B) placed over the output's end.
bool checked_custom_matmul_clobbers(int64_t overlap, bool a_is_input) {
  const MatmulShape s = trace_programs::kMatmulShape;
  Tensor ta = trace_programs::float_tensor({s.m, s.k}), tb = trace_programs::float_tensor({s.k, s.n}),
         tc = trace_programs::float_tensor({s.m, s.n});
  const Tensor& placed = a_is_input ? ta : tb;
  const int64_t input_offset = tc.byte_size - overlap;
  std::vector<uint8_t> arena(static_cast<size_t>(std::max(tc.byte_size, input_offset + placed.byte_size)), 0);
  std::vector<float> other = trace_programs::ramp((a_is_input ? tb : ta).element_count, 0.25f);
  uint8_t* a = a_is_input ? arena.data() + input_offset : reinterpret_cast<uint8_t*>(other.data());
  uint8_t* b = a_is_input ? reinterpret_cast<uint8_t*>(other.data()) : arena.data() + input_offset;
  CheckingMemory memory(arena.data(), static_cast<int64_t>(arena.size()));
  memory.begin_op(0);
  trace_programs::matmul_ijk(s, trace_programs::ref_to(ta, a, trace_programs::kInput, false, a_is_input),
                             trace_programs::ref_to(tb, b, trace_programs::kWeights, false, !a_is_input),
                             trace_programs::ref_to(tc, arena.data(), trace_programs::kOutput, true, true), memory);
  return memory.clobber().has_value();
}

TEST(TraceCustomKernels, MatmulIsSafeExactlyUpToItsOwnOverlap) {
  for (bool a_is_input : {true, false}) {
    const int64_t own = custom_matmul_overlap(a_is_input);
    EXPECT_FALSE(checked_custom_matmul_clobbers(own, a_is_input)) << a_is_input;
    EXPECT_TRUE(checked_custom_matmul_clobbers(own + 4, a_is_input)) << a_is_input;
  }
}

TEST(TraceCustomKernels, OutputChannelsOutermostConvIsSafeExactlyUpToItsOwnOverlap) {
  const int64_t own = custom_conv_overlap();
  const ConvShape s = trace_programs::kConvShape;
  const int64_t output_bytes = int64_t{s.out_height()} * s.out_width() * s.out_channels * 4;
  EXPECT_LT(own, dmo_conv_overlap()) << "walking output channels outermost rereads the input for every channel";
  const auto [clobbered_at_own, output_at_own] = checked_custom_conv(own);
  EXPECT_FALSE(clobbered_at_own);
  EXPECT_EQ(output_at_own, checked_custom_conv(0).second) << "the overlapped run computes the same output";
  ASSERT_LT(own + 4, output_bytes);
  EXPECT_TRUE(checked_custom_conv(own + 4).first) << "one element more overlap clobbers the input";
  EXPECT_TRUE(checked_custom_conv(own + 1).first);
}

// ------------------------------------------------------------ under valgrind

std::string binary_dir() { return std::filesystem::path(test::dmo_binary()).parent_path().string(); }

// Skips the test when traces cannot run here; fails when they should but
// the programs were not built.
#define DMO_REQUIRE_VALGRIND()                                                                       \
  do {                                                                                               \
    if (test::sanitized_build()) GTEST_SKIP() << "sanitizer build: its programs cannot run under valgrind";       \
    if (!valgrind_available()) GTEST_SKIP() << "valgrind is not installed: skipping the trace test"; \
  } while (0)

TraceRunOptions quiet() {
  TraceRunOptions options;
  options.discard_program_output = true;
  return options;
}

const LayerTrace* layer_named(const TraceRun& run, const std::string& name) {
  for (const auto& l : run.layers) {
    if (l.name == name) return &l;
  }
  return nullptr;
}

TEST(TraceCustomKernels, TraceEqualsTheirAddressMemoryAndDiffersFromDmosConv) {
  DMO_REQUIRE_VALGRIND();
  const TraceRun run = trace_program({binary_dir() + "/dmo_trace_custom_kernels", "conv", "matmul"}, quiet());
  ASSERT_EQ(run.layers.size(), 3u);
  const LayerTrace* conv = layer_named(run, "custom conv oc-outer");
  const LayerTrace* a = layer_named(run, "custom matmul A");
  const LayerTrace* b = layer_named(run, "custom matmul B");
  ASSERT_TRUE(conv && a && b);
  EXPECT_EQ(conv->safe_overlap, custom_conv_overlap());
  EXPECT_NE(conv->safe_overlap, dmo_conv_overlap());
  EXPECT_EQ(a->safe_overlap, custom_matmul_overlap(true));
  EXPECT_EQ(b->safe_overlap, custom_matmul_overlap(false));
  const ConvShape s = trace_programs::kConvShape;
  EXPECT_EQ(conv->loads,
            int64_t{s.out_height()} * s.out_width() * s.out_channels * s.kernel_h * s.kernel_w * s.in_channels);
  EXPECT_EQ(conv->stores, int64_t{s.out_height()} * s.out_width() * s.out_channels);
  std::cout << fmt::format("custom conv O_s {} (dmo's conv {}), matmul A {}, matmul B {}\n", conv->safe_overlap,
                           dmo_conv_overlap(), a->safe_overlap, b->safe_overlap);
}

TEST(TraceCli, TracesAProgramToJsonAndSvg) {
  DMO_REQUIRE_VALGRIND();
  const std::string svg =
      (std::filesystem::temp_directory_path() / fmt::format("dmo_trace_{}.svg", ::getpid())).string();
  auto r = test::run_dmo({"trace", "--json", "--svg", svg, "--layer", "custom matmul B", "--",
                          binary_dir() + "/dmo_trace_custom_kernels", "conv", "matmul"});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["layers"].size(), 3u);
  EXPECT_EQ(j["layers"][0]["name"], "custom conv oc-outer");
  EXPECT_EQ(j["layers"][0]["safe_overlap_bytes"], custom_conv_overlap());
  EXPECT_GT(j["layers"][0]["events"].get<int64_t>(), 0);
  EXPECT_EQ(j["layers"][2]["safe_overlap_bytes"], custom_matmul_overlap(false));
  EXPECT_GT(j["trace"]["memory_events"].get<int64_t>(), 0);
  const std::vector<uint8_t> bytes = test::read_file(svg);
  const std::string picture(bytes.begin(), bytes.end());
  EXPECT_NE(picture.find("custom matmul B"), std::string::npos);
  EXPECT_NE(picture.find(fmt::format("O_s = {} of 120 output bytes", custom_matmul_overlap(false))), std::string::npos);
  std::filesystem::remove(svg);
}

TEST(TraceCli, ReportsMisusedMarkersFailingProgramsAndAMissingValgrind) {
  DMO_REQUIRE_VALGRIND();
  const std::string program = binary_dir() + "/dmo_trace_custom_kernels";
  auto r = test::run_dmo({"trace", "--", program, "nested"});
  EXPECT_EQ(r.exit_status, 2);
  EXPECT_NE(r.err.find("layer 'inner layer' begins inside layer 'outer layer'"), std::string::npos) << r.err;
  r = test::run_dmo({"trace", "--", program, "unterminated"});
  EXPECT_EQ(r.exit_status, 2);
  EXPECT_NE(r.err.find("layer 'open layer' never ends"), std::string::npos) << r.err;
  r = test::run_dmo({"trace", "--", program, "fail"});
  EXPECT_EQ(r.exit_status, 2);
  EXPECT_NE(r.err.find("exited with status 3"), std::string::npos) << r.err;
  r = test::run_dmo({"trace", "--", "/nonexistent/program"});
  EXPECT_EQ(r.exit_status, 2);
  EXPECT_NE(r.err.find("/nonexistent/program: no such program"), std::string::npos) << r.err;
  r = test::run_dmo({"trace", "--svg", "x.svg", "--model", "m", "--", program});
  EXPECT_EQ(r.exit_status, 2);
  // Without valgrind on the PATH.
  const char* path = std::getenv("PATH");
  const std::string saved = path ? path : "";
  setenv("PATH", "/nonexistent", 1);
  const std::string e = error_of([&] { trace_program({program}, quiet()); });
  setenv("PATH", saved.c_str(), 1);
  EXPECT_NE(e.find("valgrind is not installed"), std::string::npos) << e;
}

TEST(TraceCli, TracesOpsOfAModelThroughTheHarness) {
  DMO_REQUIRE_VALGRIND();
  DMO_REQUIRE_SHARED(shared);
  const std::string model = shared + "/models/tflm_hello_world_int8.tflite";
  for (const char* novec : {"--novec", ""}) {
    std::vector<std::string> args = {"trace", "--json", "--model", model, "--op", "0", "--op", "2", "--op", "1"};
    if (*novec) args.push_back(novec);
    auto r = test::run_dmo(args);
    ASSERT_EQ(r.exit_status, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["layers"].size(), 3u);
    for (int op = 0; op < 3; ++op) {
      const auto& l = j["layers"][static_cast<size_t>(op)];
      EXPECT_EQ(l["op"], op);
      EXPECT_EQ(l["kind"], "FULLY_CONNECTED");
      EXPECT_EQ(l["vectorised"], *novec == 0);
      EXPECT_GT(l["events"].get<int64_t>(), 0);
      if (*novec)
        EXPECT_EQ(l["safe_overlap_bytes"], l["algorithmic_bytes"]) << l.dump();
      else
        EXPECT_GE(l["safe_overlap_bytes"].get<int64_t>(), l["algorithmic_bytes"].get<int64_t>()) << l.dump();
    }
  }
  auto r = test::run_dmo({"trace", "--model", model, "--op", "3"});
  EXPECT_EQ(r.exit_status, 2);
  EXPECT_NE(r.err.find("has no op 3"), std::string::npos) << r.err;
}

TEST(TraceCli, TracesOpsOfAModelWalkingDescending) {
  DMO_REQUIRE_VALGRIND();
  DMO_REQUIRE_SHARED(shared);
  // Conv, depthwise conv, average and max pool walk descending; the softmax cannot.
  const std::string model = shared + "/models/litert_mobilenet_like_model.tflite";
  const Graph graph = read_tflite_file(model);
  const auto pairs = overlap_candidates(graph.main(), false);
  const std::vector<int32_t> ops = {0, 1, 3, 4, 5};
  for (const char* novec : {"--novec", ""}) {
    std::vector<std::string> args = {"trace", "--json", "--descending", "--model", model};
    for (int32_t op : ops) args.insert(args.end(), {"--op", std::to_string(op)});
    if (*novec) args.push_back(novec);
    auto r = test::run_dmo(args);
    ASSERT_EQ(r.exit_status, 0) << r.err;
    EXPECT_NE(r.err.find("op 5 (SOFTMAX) cannot walk descending: traced ascending"), std::string::npos) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["layers"].size(), ops.size());
    for (size_t i = 0; i < ops.size(); ++i) {
      const auto& l = j["layers"][i];
      const int32_t op = ops[i];
      const bool descending = op != 5;
      EXPECT_EQ(l["op"], op);
      EXPECT_EQ(l["walk"], descending ? "descending" : "ascending") << l.dump();
      const auto& pair = pairs[static_cast<size_t>(op)];
      EXPECT_EQ(l["algorithmic_bytes"], algorithmic_safe_overlap(graph, op, pair.input, pair.output, descending));
      const char* traced = descending ? "safe_overlap_descending_bytes" : "safe_overlap_bytes";
      if (*novec)
        EXPECT_EQ(l[traced], l["algorithmic_bytes"]) << l.dump();
      else
        EXPECT_GE(l[traced].get<int64_t>(), l["algorithmic_bytes"].get<int64_t>()) << l.dump();
    }
  }
  auto r = test::run_dmo({"trace", "--descending", "--novec", "--model", model, "--op", "4"});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_NE(r.out.find("O_s desc."), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("descending"), std::string::npos) << r.out;
}

// ------------------------------------------------------------ every kernel

struct KernelCase {
  trace_configs::KernelConfig config;
  OverlapCandidate pair;
  bool descending = false;  // the walk traced
  // The algorithmic O_s of that walk: output below the input (ascending
  // O_s) and above it (descending O_s, mirrored addresses).
  int64_t algorithmic = 0, algorithmic_descending = 0;
  // The kernel block-copies the input to the output (TFLM's memcpy): its
  // O_s takes each copy's worst order (every store before any load), which
  // a real memcpy, reading before it writes, does not take: a trace may
  // exceed it.
  bool block_copy = false;
  std::string layer;
};

bool copies_input_to_output(const Graph& graph, const OverlapCandidate& pair) {
  Interpreter interpreter(graph, unshared_placement(graph.main()));
  const auto& tensors = graph.main().tensors;
  AddressMemory memory(pair.input, pair.output, tensors[static_cast<size_t>(pair.input)].byte_size,
                       tensors[static_cast<size_t>(pair.output)].byte_size);
  run_kernel(interpreter.context(0), memory);
  return memory.copied_input_to_output();
}

// AddressMemory over op 0 walking `descending`, plain or on mirrored
// addresses: both values for either walk, which a trace of that walk gives.
int64_t walk_overlap(const Graph& graph, const OverlapCandidate& pair, bool descending, bool mirrored) {
  if (!descending && !mirrored) return algorithmic_safe_overlap(graph, 0, pair.input, pair.output);
  if (descending && mirrored) return algorithmic_safe_overlap(graph, 0, pair.input, pair.output, true);
  Interpreter interpreter(graph, unshared_placement(graph.main()));
  OpContext ctx = interpreter.context(0);
  ctx.descending = descending;
  const auto& tensors = graph.main().tensors;
  AddressMemory memory(pair.input, pair.output, tensors[static_cast<size_t>(pair.input)].byte_size,
                       tensors[static_cast<size_t>(pair.output)].byte_size, mirrored);
  run_kernel(ctx, memory);
  return memory.safe_overlap();
}

std::vector<std::pair<std::string, Graph>> shared_models() {
  std::vector<std::pair<std::string, Graph>> models;
  auto dir = test::shared_dir();
  if (!dir) return models;
  for (const std::string& path : test::tflite_files_in(*dir + "/models")) {
    try {
      models.emplace_back(test::file_stem(path), read_tflite_file(path));
    } catch (const Error&) {
      // Not a model dmo reads: not a source of configurations.
    }
  }
  return models;
}

// `random` random configurations of every kind (seed `seed`), and up to
// `real` distinct ops of each kind from the real models; each one checked
// to run walking `descending`.
std::vector<KernelCase> kernel_cases(const std::vector<OpKind>& kinds, bool descending, int random, uint32_t seed,
                                     size_t real) {
  const auto models = shared_models();
  std::vector<KernelCase> cases;
  for (OpKind kind : kinds) {
    auto configs = trace_configs::real_model_configs(models, kind, real, 6000);
    auto randoms = trace_configs::random_configs(kind, random, seed);
    configs.insert(configs.end(), std::make_move_iterator(randoms.begin()), std::make_move_iterator(randoms.end()));
    for (auto& c : configs) {
      KernelCase k;
      k.pair = overlap_candidates(c.graph.main(), false)[0];
      if (k.pair.input == kNoTensor || k.pair.output == kNoTensor) continue;  // e.g. an in-place op: nothing to overlap
      k.layer = traced_op_layer_name(c.graph.source, 0, c.graph.main().ops[0].name());
      k.descending = descending;
      try {
        TensorPlacement placement = unshared_placement(c.graph.main());
        if (descending) placement.descending_ops = {0};
        Interpreter interpreter(c.graph, std::move(placement));
        interpreter.set_inputs(pattern_input(c.graph.main(), 1));
        interpreter.run();
        k.algorithmic = walk_overlap(c.graph, k.pair, descending, false);
        k.algorithmic_descending = walk_overlap(c.graph, k.pair, descending, true);
        k.block_copy = copies_input_to_output(c.graph, k.pair);
      } catch (const Error& e) {
        ADD_FAILURE() << c.graph.source << ": the configuration does not run: " << e.what();
        continue;
      }
      k.config = std::move(c);
      cases.push_back(std::move(k));
    }
  }
  return cases;
}

std::vector<KernelCase> kernel_cases() { return kernel_cases(trace_configs::all_kernel_kinds(), false, 20, 1, 6); }

// The kinds whose kernels can walk descending.
const std::vector<OpKind>& windowed_kinds() {
  static_assert(kernel_walks_descending(OpKind::kConv2D) && kernel_walks_descending(OpKind::kDepthwiseConv2D) &&
                kernel_walks_descending(OpKind::kAveragePool2D) && kernel_walks_descending(OpKind::kMaxPool2D));
  static const std::vector<OpKind> kinds = {OpKind::kConv2D, OpKind::kDepthwiseConv2D, OpKind::kAveragePool2D,
                                            OpKind::kMaxPool2D};
  return kinds;
}

// The bottom-up O_s of one traced layer (-1 when the layer is missing).
struct Traced {
  int64_t ascending = -1, descending = -1;
};

// Traces every case in one valgrind run of the harness (walking descending
// with `descending`); per case its bottom-up O_s.
std::vector<Traced> trace_cases(const std::vector<KernelCase>& cases, bool novec, bool descending, TraceRun& run) {
  std::vector<TracedGraph> graphs;
  for (const auto& c : cases) graphs.push_back({c.config.graph, {0}});
  const std::string bundle = (std::filesystem::temp_directory_path() /
                              fmt::format("dmo_trace_kernels_{}_{}_{}.bundle", ::getpid(), novec, descending))
                                 .string();
  write_graph_bundle(bundle, graphs);
  std::vector<std::string> command = {binary_dir() + (novec ? "/dmo_op_harness_novec" : "/dmo_op_harness")};
  if (descending) command.push_back("--descending");
  command.insert(command.end(), {"--bundle", bundle});
  run = trace_program(command, quiet());
  std::filesystem::remove(bundle);
  std::map<std::string, Traced> by_name;
  for (const auto& l : run.layers) by_name[l.name] = {l.safe_overlap, l.safe_overlap_descending};
  std::vector<Traced> traced;
  for (const auto& c : cases) traced.push_back(by_name.count(c.layer) ? by_name[c.layer] : Traced{});
  return traced;
}

struct Tally {
  int configs = 0, real = 0, equal = 0, greater = 0, less = 0;
  int64_t events = 0;  // kept loads and stores, all configurations
};

// Per kind, how the bottom-up values compare with the algorithmic ones.
std::map<std::string, Tally> tally(const std::vector<KernelCase>& cases, const std::vector<int64_t>& traced,
                                   const std::vector<int64_t>& algorithmic, const TraceRun& run) {
  std::map<std::string, int64_t> events;
  for (const auto& l : run.layers) events[l.name] = l.events();
  std::map<std::string, Tally> per_kind;
  for (size_t i = 0; i < cases.size(); ++i) {
    Tally& t = per_kind[builtin_op_name(static_cast<int32_t>(cases[i].config.kind))];
    ++t.configs;
    t.events += events[cases[i].layer];
    t.real += cases[i].config.origin != "random";
    if (traced[i] == algorithmic[i])
      ++t.equal;
    else if (traced[i] > algorithmic[i])
      ++t.greater;
    else
      ++t.less;
  }
  return per_kind;
}

void print_tally(const std::map<std::string, Tally>& per_kind, const TraceRun& run, const char* what) {
  int64_t in_layers = 0, kept = 0;
  for (const auto& l : run.layers) in_layers += l.instructions, kept += l.events();
  std::cout << fmt::format(
      "{}: {} layers, {} trace lines, {} memory events ({} kept), {} instructions ({} in layers) "
      "in {:.1f} s\n",
      what, run.layers.size(), run.lines, run.memory_events, kept, run.instructions, in_layers, run.seconds);
  std::cout << fmt::format("{:<20} {:>7} {:>5} {:>6} {:>8} {:>5} {:>8}\n", "kernel", "configs", "real", "equal",
                           "greater", "less", "events");
  for (const auto& [kind, t] : per_kind) {
    std::cout << fmt::format("{:<20} {:>7} {:>5} {:>6} {:>8} {:>5} {:>8}\n", kind, t.configs, t.real, t.equal,
                             t.greater, t.less, t.events);
  }
}

// The traced and algorithmic values side by side: ascending or descending O_s.
struct Compared {
  std::vector<int64_t> traced, algorithmic;
};
Compared compared(const std::vector<KernelCase>& cases, const std::vector<Traced>& traced, bool descending_overlap) {
  Compared c;
  for (size_t i = 0; i < cases.size(); ++i) {
    c.traced.push_back(descending_overlap ? traced[i].descending : traced[i].ascending);
    c.algorithmic.push_back(descending_overlap ? cases[i].algorithmic_descending : cases[i].algorithmic);
  }
  return c;
}

TEST(TraceKernels, WithoutVectorisationBottomUpEqualsAlgorithmic) {
  DMO_REQUIRE_VALGRIND();
  const std::vector<KernelCase> cases = kernel_cases();
  TraceRun run;
  const std::vector<Traced> traced = trace_cases(cases, true, false, run);
  for (size_t i = 0; i < cases.size(); ++i) {
    if (cases[i].block_copy) {
      EXPECT_GE(traced[i].ascending, cases[i].algorithmic) << cases[i].layer << " (" << cases[i].config.origin << ")";
      continue;
    }
    EXPECT_EQ(traced[i].ascending, cases[i].algorithmic) << cases[i].layer << " (" << cases[i].config.origin << ")";
    // The same ascending walk also gives the descending O_s.
    EXPECT_EQ(traced[i].descending, cases[i].algorithmic_descending)
        << cases[i].layer << " (" << cases[i].config.origin << "), descending O_s of the ascending walk";
  }
  const Compared c = compared(cases, traced, false);
  const auto per_kind = tally(cases, c.traced, c.algorithmic, run);
  EXPECT_EQ(per_kind.size(), trace_configs::all_kernel_kinds().size());
  for (const auto& [kind, t] : per_kind) EXPECT_GE(t.configs, 20) << kind;
  print_tally(per_kind, run, "no auto-vectorisation");
}

TEST(TraceKernels, VectorisedBottomUpIsNeverBelowAlgorithmic) {
  DMO_REQUIRE_VALGRIND();
  const std::vector<KernelCase> cases = kernel_cases();
  TraceRun run;
  const std::vector<Traced> traced = trace_cases(cases, false, false, run);
  for (size_t i = 0; i < cases.size(); ++i) {
    EXPECT_GE(traced[i].ascending, cases[i].algorithmic) << cases[i].layer << " (" << cases[i].config.origin << ")";
    EXPECT_GE(traced[i].descending, cases[i].algorithmic_descending)
        << cases[i].layer << " (" << cases[i].config.origin << "), descending O_s of the ascending walk";
    if (traced[i].descending != cases[i].algorithmic_descending) {
      std::cout << fmt::format("differs (descending O_s): {} ({}): bottom-up {} algorithmic {} of {} output bytes\n",
                               cases[i].layer, cases[i].config.origin, traced[i].descending,
                               cases[i].algorithmic_descending, cases[i].pair.output_bytes);
    }
    if (traced[i].ascending != cases[i].algorithmic) {
      std::cout << fmt::format("differs: {} ({}): bottom-up {} algorithmic {} of {} output bytes\n", cases[i].layer,
                               cases[i].config.origin, traced[i].ascending, cases[i].algorithmic,
                               cases[i].pair.output_bytes);
    }
  }
  const Compared c = compared(cases, traced, false);
  print_tally(tally(cases, c.traced, c.algorithmic, run), run, "vectorised (as built)");
}

// The windowed kernels walking descending (the harness's --descending): the
// descending O_s of the trace against the algorithmic one.
std::vector<KernelCase> descending_cases() { return kernel_cases(windowed_kinds(), true, 30, 2, 6); }

TEST(TraceKernels, DescendingWithoutVectorisationBottomUpEqualsAlgorithmic) {
  DMO_REQUIRE_VALGRIND();
  const std::vector<KernelCase> cases = descending_cases();
  TraceRun run;
  const std::vector<Traced> traced = trace_cases(cases, true, true, run);
  int walk_matters = 0;  // cases whose descending O_s differs between the two walks
  for (size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(traced[i].descending, cases[i].algorithmic_descending)
        << cases[i].layer << " (" << cases[i].config.origin << ")";
    EXPECT_EQ(traced[i].ascending, cases[i].algorithmic)
        << cases[i].layer << " (" << cases[i].config.origin << "), ascending O_s of the descending walk";
    walk_matters += walk_overlap(cases[i].config.graph, cases[i].pair, false, true) != cases[i].algorithmic_descending;
  }
  // Else a harness that ignored --descending would pass too.
  EXPECT_GT(walk_matters, static_cast<int>(cases.size()) / 2);
  const Compared c = compared(cases, traced, true);
  const auto per_kind = tally(cases, c.traced, c.algorithmic, run);
  EXPECT_EQ(per_kind.size(), windowed_kinds().size());
  for (const auto& [kind, t] : per_kind) EXPECT_GE(t.configs, 20) << kind;
  print_tally(per_kind, run, "descending, no auto-vectorisation");
  std::cout << fmt::format("{} of {} configurations have a descending O_s that depends on the walk\n", walk_matters,
                           cases.size());
}

TEST(TraceKernels, DescendingVectorisedBottomUpIsNeverBelowAlgorithmic) {
  DMO_REQUIRE_VALGRIND();
  const std::vector<KernelCase> cases = descending_cases();
  TraceRun run;
  const std::vector<Traced> traced = trace_cases(cases, false, true, run);
  for (size_t i = 0; i < cases.size(); ++i) {
    EXPECT_GE(traced[i].descending, cases[i].algorithmic_descending)
        << cases[i].layer << " (" << cases[i].config.origin << ")";
    if (traced[i].descending != cases[i].algorithmic_descending) {
      std::cout << fmt::format("differs: {} ({}): bottom-up {} algorithmic {} of {} output bytes\n", cases[i].layer,
                               cases[i].config.origin, traced[i].descending, cases[i].algorithmic_descending,
                               cases[i].pair.output_bytes);
    }
  }
  const Compared c = compared(cases, traced, true);
  const auto per_kind = tally(cases, c.traced, c.algorithmic, run);
  for (const auto& [kind, t] : per_kind) EXPECT_GE(t.configs, 20) << kind;
  print_tally(per_kind, run, "descending, vectorised (as built)");
}

}  // namespace
}  // namespace dmo

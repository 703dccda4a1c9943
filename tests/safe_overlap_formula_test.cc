// The O_s formula on access sequences made here: small hand-made ones, the
// per-write form against the streaming fold and against a brute force over
// every (write, later read) pair, and the loop nests of REFERENCE.md 2.4's
// MobileNet layers against its check values.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "dmo/model/safe_overlap_formula.h"

namespace dmo {
namespace {

// One access of an op, in program order: a read of an input byte or a write
// of an output byte.
struct Access {
  bool is_write;
  int64_t byte;
};

int64_t fold_of(const std::vector<Access>& accesses, int64_t output_bytes) {
  SafeOverlapFold fold;
  for (const Access& a : accesses) a.is_write ? fold.write(a.byte) : fold.read(a.byte);
  return fold.safe_overlap(output_bytes);
}

// The per-write sequences AddressMemory records.
int64_t per_write_of(const std::vector<Access>& accesses, int64_t output_bytes) {
  std::vector<int64_t> max_written, min_read_before;
  int64_t pending = kNoInputRead, highest = -1;
  for (const Access& a : accesses) {
    if (a.is_write) {
      highest = std::max(highest, a.byte);
      max_written.push_back(highest);
      min_read_before.push_back(pending);
      pending = kNoInputRead;
    } else {
      pending = std::min(pending, a.byte);
    }
  }
  return safe_overlap_from_writes(max_written, min_read_before, pending, output_bytes);
}

// The definition itself: the output placed |O| - overlap bytes below the
// input is safe when no write reaches an input byte read later.
int64_t brute_force(const std::vector<Access>& accesses, int64_t output_bytes) {
  for (int64_t overlap = output_bytes; overlap > 0; --overlap) {
    const int64_t shift = output_bytes - overlap;  // input byte b sits at output byte b + shift
    bool safe = true;
    for (size_t w = 0; w < accesses.size() && safe; ++w) {
      if (!accesses[w].is_write) continue;
      for (size_t r = w + 1; r < accesses.size() && safe; ++r) {
        if (!accesses[r].is_write && accesses[r].byte + shift <= accesses[w].byte) safe = false;
      }
    }
    if (safe) return overlap;
  }
  return 0;
}

TEST(SafeOverlapFormula, HandMadeSequences) {
  // In place, element by element: the whole output.
  std::vector<Access> in_place;
  for (int64_t i = 0; i < 8; ++i) in_place.insert(in_place.end(), {{false, i}, {true, i}});
  EXPECT_EQ(fold_of(in_place, 8), 8);
  // Reading one byte behind what was written loses one byte.
  std::vector<Access> behind = {{true, 0}, {false, 0}, {true, 1}, {false, 1}, {true, 2}};
  EXPECT_EQ(fold_of(behind, 3), 2);
  // Every output byte needs the whole input read again: only the last one may overlap.
  std::vector<Access> matrix_vector;
  for (int64_t o = 0; o < 4; ++o) {
    for (int64_t i = 0; i < 6; ++i) matrix_vector.push_back({false, i});
    matrix_vector.push_back({true, o});
  }
  EXPECT_EQ(fold_of(matrix_vector, 4), 1);
  // Reads far behind the writes: no overlap at all (clamped at 0).
  EXPECT_EQ(fold_of({{true, 9}, {false, 0}}, 10), 0);
  // No read after a write: the whole output; no access at all likewise.
  EXPECT_EQ(fold_of({{false, 0}, {false, 5}, {true, 3}}, 4), 4);
  EXPECT_EQ(fold_of({}, 4), 4);
  EXPECT_EQ(safe_overlap_from_writes({}, {}, kNoInputRead, 4), 4);
}

TEST(SafeOverlapFormula, PerWriteFoldAndBruteForceAgree) {
  std::mt19937 random(7);
  for (int trial = 0; trial < 500; ++trial) {
    const int64_t input_bytes = 1 + random() % 12, output_bytes = 1 + random() % 12;
    std::vector<Access> accesses(static_cast<size_t>(random() % 24));
    for (Access& a : accesses) {
      a.is_write = random() % 2 == 0;
      a.byte = static_cast<int64_t>(random() % static_cast<uint64_t>(a.is_write ? output_bytes : input_bytes));
    }
    SCOPED_TRACE(trial);
    const int64_t expected = brute_force(accesses, output_bytes);
    EXPECT_EQ(fold_of(accesses, output_bytes), expected);
    EXPECT_EQ(per_write_of(accesses, output_bytes), expected);
  }
}

// A conv-like loop nest over NHWC element offsets (one byte an element):
// for oy, ox, oc { for fy, fx, (ic) } reading every tap inside the input,
// then writing the output element. Depthwise (multiplier 1) reads channel oc only.
struct ConvLayer {
  int64_t in_h, in_w, in_c, out_h, out_w, out_c, kernel, stride;
  bool depthwise;
};

int64_t loop_nest_safe_overlap(const ConvLayer& l) {
  // TFLite's padding before the first row and column (never negative).
  const int64_t pad_h = std::max<int64_t>(0, ((l.out_h - 1) * l.stride + l.kernel - l.in_h) / 2);
  const int64_t pad_w = std::max<int64_t>(0, ((l.out_w - 1) * l.stride + l.kernel - l.in_w) / 2);
  SafeOverlapFold fold;
  for (int64_t oy = 0; oy < l.out_h; ++oy) {
    for (int64_t ox = 0; ox < l.out_w; ++ox) {
      for (int64_t oc = 0; oc < l.out_c; ++oc) {
        for (int64_t fy = 0; fy < l.kernel; ++fy) {
          const int64_t iy = oy * l.stride - pad_h + fy;
          if (iy < 0 || iy >= l.in_h) continue;
          for (int64_t fx = 0; fx < l.kernel; ++fx) {
            const int64_t ix = ox * l.stride - pad_w + fx;
            if (ix < 0 || ix >= l.in_w) continue;
            const int64_t row = (iy * l.in_w + ix) * l.in_c;
            // The lowest channel read is all that counts for a tap.
            fold.read(row + (l.depthwise ? oc : 0));
          }
        }
        fold.write((oy * l.out_w + ox) * l.out_c + oc);
      }
    }
  }
  return fold.safe_overlap(l.out_h * l.out_w * l.out_c);
}

TEST(SafeOverlapFormula, ReferenceCheckValues) {
  // MobileNet v1 1.0 224, in elements.
  EXPECT_EQ(loop_nest_safe_overlap({224, 224, 3, 112, 112, 32, 3, 2, false}), 149'851);   // conv0
  EXPECT_EQ(loop_nest_safe_overlap({112, 112, 32, 112, 112, 32, 3, 1, true}), 397'792);   // dw1
  EXPECT_EQ(loop_nest_safe_overlap({112, 112, 32, 112, 112, 64, 1, 1, false}), 401'377);  // pw1
  EXPECT_EQ(loop_nest_safe_overlap({112, 112, 64, 56, 56, 64, 3, 2, true}), 200'704);     // dw2
  // MobileNet v2 1.0 224 float32, second depthwise: the whole output, 1,204,224 bytes.
  EXPECT_EQ(4 * loop_nest_safe_overlap({112, 112, 96, 56, 56, 96, 3, 2, true}), 1'204'224);
}

}  // namespace
}  // namespace dmo

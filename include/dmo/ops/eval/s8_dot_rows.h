// The inner products of dmo's int8 device kernels (CONV_2D and
// FULLY_CONNECTED): one input column (a conv's window, a fully connected
// row), widened once to int16 with its zero point removed, against any
// number of int8 weight rows (packed four by four), two multiply-adds per
// instruction (SMLAD), each row's total requantized to int8.
// The column is stored "reordered": per group of four elements, elements
// 0 and 2 in one pair and 1 and 3 in the next, the order SXTB16 unpacks a
// weight word in, so a weight word costs one load and two extends. Sums
// are the reference kernels' exactly: integer addition in any order gives
// the same int32 (wrapping) total. Freestanding.
#pragma once

#include <cstdint>

#include "dmo/ops/eval/device_requantize.h"
#include "dmo/ops/eval/dsp_intrinsics.h"
#include "dmo/ops/fixed_point.h"

namespace dmo {

// column[0 .. depth) = source + offset as int16, reordered per group of four
// (a tail shorter than four stays in order); returns the column's sum.
inline int32_t widen_column(const int8_t* source, int32_t depth, int32_t offset, int16_t* column) {
  const uint32_t offsets = dsp::splat_pair(offset);
  int32_t sum = 0;
  const int32_t whole = depth / 4 * 4;
  for (int32_t k = 0; k < whole; k += 4) {
    const uint32_t word = dsp::load_word(source + k);
    const uint32_t even = dsp::add_pairs(dsp::sign_extend_even_bytes(word), offsets);
    const uint32_t odd = dsp::add_pairs(dsp::sign_extend_odd_bytes(word), offsets);
    dsp::store_word(column + k, even);
    dsp::store_word(column + k + 2, odd);
    sum = dsp::dual_multiply_add(even, 0x00010001u, sum);
    sum = dsp::dual_multiply_add(odd, 0x00010001u, sum);
  }
  for (int32_t k = whole; k < depth; ++k) {
    column[k] = static_cast<int16_t>(source[k] + offset);
    sum += column[k];
  }
  return sum;
}

// Weight rows as dot_rows reads them: per group of four rows, per four
// elements of depth, the four rows' words one after another (then each
// row's last depth % 4 elements); rows beyond the last whole group stay as
// they are. One pointer walks a group, one word load per row and step.
// Same size as the rows; generated code stores its weights so.
inline void pack_weight_rows(const int8_t* rows, int32_t count, int32_t depth, int8_t* packed) {
  const int32_t whole = depth / 4 * 4;
  int32_t r = 0;
  for (; r + 4 <= count; r += 4) {
    for (int32_t k = 0; k < whole; k += 4) {
      for (int32_t i = 0; i < 4; ++i) {
        for (int32_t b = 0; b < 4; ++b) *packed++ = rows[(r + i) * depth + k + b];
      }
    }
    for (int32_t i = 0; i < 4; ++i) {
      for (int32_t k = whole; k < depth; ++k) *packed++ = rows[(r + i) * depth + k];
    }
  }
  for (int32_t k = r * depth; k < count * depth; ++k) *packed++ = rows[k];
}

// TFLite's int8 output stage for one channel: + bias, then OutputStage.
inline int8_t requantize_s8(int32_t acc, int32_t bias, QuantizedMultiplier m, int32_t output_offset, int32_t lo,
                            int32_t hi) {
  const int32_t total = static_cast<int32_t>(static_cast<uint32_t>(acc) + static_cast<uint32_t>(bias));
  return OutputStage(m, output_offset, lo, hi)(total);
}

// What one column's inner products need besides the column: the packed
// weight rows (pack_weight_rows), their count and depth, per row a bias
// (or none) and multiplier, and the output stage's offset and range.
struct DotRowsOutput {
  const int8_t* packed_rows;
  int32_t rows, depth;
  const int32_t* bias;  // nullptr: none
  const QuantizedMultiplier* multipliers;
  int32_t output_offset, min, max;
};

// out[r] = requantized (column . row r + offset_term + bias[r]) for every
// row, four rows at a time, each stored after its four inner products.
inline void dot_rows_to_s8(const int16_t* column, int32_t offset_term, const DotRowsOutput d, int8_t* out) {
  // Locals, not loads through `d`: the int8 stores may alias anything.
  const int32_t depth = d.depth, whole = depth / 4 * 4, tail = depth - whole, rows = d.rows;
  const int32_t* const bias = d.bias;
  const QuantizedMultiplier* const multipliers = d.multipliers;
  const int32_t output_offset = d.output_offset, min = d.min, max = d.max;
  const int8_t* w = d.packed_rows;
  auto store = [=](int32_t r, int32_t acc) {
    const int32_t total =
        static_cast<int32_t>(static_cast<uint32_t>(acc) + static_cast<uint32_t>(bias != nullptr ? bias[r] : 0));
    out[r] = OutputStage(multipliers[r], output_offset, min, max)(total);
  };
  int32_t r = 0;
  for (; r + 4 <= rows; r += 4) {
    int32_t a0 = offset_term, a1 = offset_term, a2 = offset_term, a3 = offset_term;
    const int16_t* c = column;
    const int16_t* const end = column + whole;
    for (; c != end; c += 4, w += 16) {
      const uint32_t even = dsp::load_word(c), odd = dsp::load_word(c + 2);
      uint32_t word = dsp::load_word(w);
      a0 = dsp::dual_multiply_add(even, dsp::sign_extend_even_bytes(word), a0);
      a0 = dsp::dual_multiply_add(odd, dsp::sign_extend_odd_bytes(word), a0);
      word = dsp::load_word(w + 4);
      a1 = dsp::dual_multiply_add(even, dsp::sign_extend_even_bytes(word), a1);
      a1 = dsp::dual_multiply_add(odd, dsp::sign_extend_odd_bytes(word), a1);
      word = dsp::load_word(w + 8);
      a2 = dsp::dual_multiply_add(even, dsp::sign_extend_even_bytes(word), a2);
      a2 = dsp::dual_multiply_add(odd, dsp::sign_extend_odd_bytes(word), a2);
      word = dsp::load_word(w + 12);
      a3 = dsp::dual_multiply_add(even, dsp::sign_extend_even_bytes(word), a3);
      a3 = dsp::dual_multiply_add(odd, dsp::sign_extend_odd_bytes(word), a3);
    }
    for (int32_t k = 0; k < tail; ++k) {
      const int32_t x = column[whole + k];
      a0 = dsp::multiply_add(x, w[k], a0);
      a1 = dsp::multiply_add(x, w[tail + k], a1);
      a2 = dsp::multiply_add(x, w[2 * tail + k], a2);
      a3 = dsp::multiply_add(x, w[3 * tail + k], a3);
    }
    w += 4 * tail;
    store(r, a0);
    store(r + 1, a1);
    store(r + 2, a2);
    store(r + 3, a3);
  }
  for (; r < rows; ++r, w += depth) {
    int32_t a0 = offset_term;
    for (int32_t k = 0; k < whole; k += 4) {
      const uint32_t word = dsp::load_word(w + k);
      a0 = dsp::dual_multiply_add(dsp::load_word(column + k), dsp::sign_extend_even_bytes(word), a0);
      a0 = dsp::dual_multiply_add(dsp::load_word(column + k + 2), dsp::sign_extend_odd_bytes(word), a0);
    }
    for (int32_t k = whole; k < depth; ++k) a0 = dsp::multiply_add(column[k], w[k], a0);
    store(r, a0);
  }
}

}  // namespace dmo

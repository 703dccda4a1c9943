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

#include "dmo/ops/eval/device_access.h"
#include "dmo/ops/eval/device_requantize.h"
#include "dmo/ops/eval/dsp_intrinsics.h"
#include "dmo/ops/fixed_point.h"

namespace dmo {

// column[0 .. depth) = source + offset as int16, reordered per group of four
// (a tail shorter than four stays in order); returns the column's sum.
// `source` is input 0 read through `access`, or a gathered copy of it.
template <class Access = DirectAccess>
inline int32_t widen_column(const int8_t* source, int32_t depth, int32_t offset, int16_t* column,
                            Access access = {}) {
  const uint32_t offsets = dsp::splat_pair(offset);
  int32_t sum = 0;
  const int32_t whole = depth / 4 * 4;
  for (int32_t k = 0; k < whole; k += 4) {
    const uint32_t word = access.load_word(0, source + k);
    const uint32_t even = dsp::add_pairs(dsp::sign_extend_even_bytes(word), offsets);
    const uint32_t odd = dsp::add_pairs(dsp::sign_extend_odd_bytes(word), offsets);
    dsp::store_word(column + k, even);
    dsp::store_word(column + k + 2, odd);
    sum = dsp::dual_multiply_add(even, 0x00010001u, sum);
    sum = dsp::dual_multiply_add(odd, 0x00010001u, sum);
  }
  for (int32_t k = whole; k < depth; ++k) {
    column[k] = static_cast<int16_t>(access.load(0, source + k) + offset);
    sum += column[k];
  }
  return sum;
}

// Two columns at once (two output pixels of a conv), interleaved: per
// group of four elements, the first column's even and odd pairs, then the
// second's; then the first column's tail, then the second's. Returns the
// columns' sums.
struct ColumnSums {
  int32_t first = 0, second = 0;
};

template <class Access = DirectAccess>
inline ColumnSums widen_column_pair(const int8_t* first, const int8_t* second, int32_t depth, int32_t offset,
                                    int16_t* column, Access access = {}) {
  const uint32_t offsets = dsp::splat_pair(offset);
  ColumnSums sums;
  const int32_t whole = depth / 4 * 4;
  int16_t* to = column;
  for (int32_t k = 0; k < whole; k += 4, to += 8) {
    const uint32_t a = access.load_word(0, first + k), b = access.load_word(0, second + k);
    const uint32_t a_even = dsp::add_pairs(dsp::sign_extend_even_bytes(a), offsets);
    const uint32_t a_odd = dsp::add_pairs(dsp::sign_extend_odd_bytes(a), offsets);
    const uint32_t b_even = dsp::add_pairs(dsp::sign_extend_even_bytes(b), offsets);
    const uint32_t b_odd = dsp::add_pairs(dsp::sign_extend_odd_bytes(b), offsets);
    dsp::store_word(to, a_even);
    dsp::store_word(to + 2, a_odd);
    dsp::store_word(to + 4, b_even);
    dsp::store_word(to + 6, b_odd);
    sums.first = dsp::dual_multiply_add(a_even, 0x00010001u, sums.first);
    sums.first = dsp::dual_multiply_add(a_odd, 0x00010001u, sums.first);
    sums.second = dsp::dual_multiply_add(b_even, 0x00010001u, sums.second);
    sums.second = dsp::dual_multiply_add(b_odd, 0x00010001u, sums.second);
  }
  const int32_t tail = depth - whole;
  for (int32_t k = 0; k < tail; ++k) {
    to[k] = static_cast<int16_t>(access.load(0, first + whole + k) + offset);
    to[tail + k] = static_cast<int16_t>(access.load(0, second + whole + k) + offset);
    sums.first += to[k];
    sums.second += to[tail + k];
  }
  return sums;
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

// What one column's inner products need besides the column: the packed
// weight rows (pack_weight_rows), their count and depth, per row its
// output stage (bias and multiplier), and the output's offset and range.
struct DotRowsOutput {
  const int8_t* packed_rows;
  int32_t rows, depth;
  ChannelStages stages;
  int32_t output_offset, min, max;
};

// A column as the inner products read it: `pairs(k)` gives elements k..k+3
// (k a multiple of 4) as the even and odd pairs, `at(k)` one element.
// WidenedColumn reads a widen_column result; Int8Column widens an int8
// row as it goes (no buffer: a fully connected row is read once per four
// weight rows, so widening it again costs about what a load would).
struct WidenedColumn {
  const int16_t* column;
  void pairs(int32_t k, uint32_t& even, uint32_t& odd) const {
    even = dsp::load_word(column + k);
    odd = dsp::load_word(column + k + 2);
  }
  int32_t at(int32_t k) const { return column[k]; }
};

template <class Access = DirectAccess>
struct Int8Column {
  const int8_t* values;  // input 0
  int32_t offset;
  uint32_t offsets;  // dsp::splat_pair(offset)
  Access access = {};
  void pairs(int32_t k, uint32_t& even, uint32_t& odd) const {
    const uint32_t word = access.load_word(0, values + k);
    even = dsp::add_pairs(dsp::sign_extend_even_bytes(word), offsets);
    odd = dsp::add_pairs(dsp::sign_extend_odd_bytes(word), offsets);
  }
  int32_t at(int32_t k) const { return access.load(0, values + k) + offset; }
};

// out[r] = requantized (column . row r + offset_term + bias[r]) for every
// row, four rows at a time, each stored after its four inner products.
template <StageForm kForm, bool kFullRange, class Column, class Access>
inline void dot_rows_to_s8_staged(const Column column, int32_t offset_term, const DotRowsOutput d, int8_t* out,
                                  Access access) {
  // Locals, not loads through `d`: the int8 stores may alias anything.
  const int32_t depth = d.depth, whole = depth / 4 * 4, tail = depth - whole, rows = d.rows;
  const ChannelStage* const stages = d.stages.table;
  const int32_t output_offset = d.output_offset, min = d.min, max = d.max;
  const int8_t* w = d.packed_rows;
  auto store = [=](int32_t r, int32_t acc) {
    access.store(out + r, static_cast<int8_t>(apply_stage<kForm, kFullRange>(stages[r], acc, output_offset, min, max)));
  };
  const int32_t grouped = rows / 4 * 4;  // rows of whole groups of four
  int32_t r = 0;
  for (; r < grouped; r += 4) {
    int32_t a0 = offset_term, a1 = offset_term, a2 = offset_term, a3 = offset_term;
    for (int32_t k = 0; k < whole; k += 4, w += 16) {
      uint32_t even, odd;
      column.pairs(k, even, odd);
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
      const int32_t x = column.at(whole + k);
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
      uint32_t even, odd;
      column.pairs(k, even, odd);
      const uint32_t word = dsp::load_word(w + k);
      a0 = dsp::dual_multiply_add(even, dsp::sign_extend_even_bytes(word), a0);
      a0 = dsp::dual_multiply_add(odd, dsp::sign_extend_odd_bytes(word), a0);
    }
    for (int32_t k = whole; k < depth; ++k) a0 = dsp::multiply_add(column.at(k), w[k], a0);
    store(r, a0);
  }
}


// dot_rows_to_s8 for two interleaved columns (widen_column_pair): each
// weight word is unpacked once for both, two rows of a group at a time.
// Every output of both is stored after both columns were read.
template <StageForm kForm, bool kFullRange, class Access>
inline void dot_rows_pair_to_s8_staged(const int16_t* column, int32_t first_term, int32_t second_term,
                                        const DotRowsOutput d, int8_t* first_out, int8_t* second_out,
                                        Access access) {
  const int32_t depth = d.depth, whole = depth / 4 * 4, tail = depth - whole, rows = d.rows;
  const ChannelStage* const stages = d.stages.table;
  const int32_t output_offset = d.output_offset, min = d.min, max = d.max;
  const int16_t* const first_tail = column + 2 * whole;
  const int16_t* const second_tail = first_tail + tail;
  // A row's stage copied once for both outputs: after the first store the
  // table would be loaded again (an int8 store may alias it).
  auto store_both = [=](int32_t r, int32_t first_acc, int32_t second_acc) DMO_ALWAYS_INLINE {
    const ChannelStage stage = stages[r];
    access.store(first_out + r,
                 static_cast<int8_t>(apply_stage<kForm, kFullRange>(stage, first_acc, output_offset, min, max)));
    access.store(second_out + r,
                 static_cast<int8_t>(apply_stage<kForm, kFullRange>(stage, second_acc, output_offset, min, max)));
  };
  const int8_t* w = d.packed_rows;
  int32_t r = 0;
  for (; r + 4 <= rows; r += 4) {
    for (int32_t half = 0; half < 2; ++half) {
      int32_t a0 = first_term, a1 = first_term, b0 = second_term, b1 = second_term;
      const int16_t* c = column;
      const int16_t* const end = column + 2 * whole;
      const int8_t* wp = w + 8 * half;
      // Four elements of depth of both columns against two rows.
      auto step = [&](const int16_t* at, const int8_t* weights) DMO_ALWAYS_INLINE {
        const uint32_t a_even = dsp::load_word(at), a_odd = dsp::load_word(at + 2);
        const uint32_t b_even = dsp::load_word(at + 4), b_odd = dsp::load_word(at + 6);
        uint32_t word = dsp::load_word(weights);
        uint32_t w_even = dsp::sign_extend_even_bytes(word), w_odd = dsp::sign_extend_odd_bytes(word);
        a0 = dsp::dual_multiply_add(a_even, w_even, a0);
        a0 = dsp::dual_multiply_add(a_odd, w_odd, a0);
        b0 = dsp::dual_multiply_add(b_even, w_even, b0);
        b0 = dsp::dual_multiply_add(b_odd, w_odd, b0);
        word = dsp::load_word(weights + 4);
        w_even = dsp::sign_extend_even_bytes(word);
        w_odd = dsp::sign_extend_odd_bytes(word);
        a1 = dsp::dual_multiply_add(a_even, w_even, a1);
        a1 = dsp::dual_multiply_add(a_odd, w_odd, a1);
        b1 = dsp::dual_multiply_add(b_even, w_even, b1);
        b1 = dsp::dual_multiply_add(b_odd, w_odd, b1);
      };
      if (whole <= 8) {
        // A short column: unrolling would cost more than it saves.
        for (; c != end; c += 8, wp += 16) step(c, wp);
      } else {
#pragma GCC unroll 4
        for (; c != end; c += 8, wp += 16) step(c, wp);
      }
      const int8_t* w_tail = w + 4 * whole + 2 * half * tail;
      for (int32_t k = 0; k < tail; ++k) {
        a0 = dsp::multiply_add(first_tail[k], w_tail[k], a0);
        a1 = dsp::multiply_add(first_tail[k], w_tail[tail + k], a1);
        b0 = dsp::multiply_add(second_tail[k], w_tail[k], b0);
        b1 = dsp::multiply_add(second_tail[k], w_tail[tail + k], b1);
      }
      const int32_t row = r + 2 * half;
      store_both(row, a0, b0);
      store_both(row + 1, a1, b1);
    }
    w += 4 * depth;
  }
  for (; r < rows; ++r, w += depth) {
    int32_t a0 = first_term, b0 = second_term;
    for (int32_t k = 0; k < whole; k += 4) {
      const uint32_t word = dsp::load_word(w + k);
      const uint32_t w_even = dsp::sign_extend_even_bytes(word), w_odd = dsp::sign_extend_odd_bytes(word);
      const int16_t* c = column + 2 * k;
      a0 = dsp::dual_multiply_add(dsp::load_word(c), w_even, a0);
      a0 = dsp::dual_multiply_add(dsp::load_word(c + 2), w_odd, a0);
      b0 = dsp::dual_multiply_add(dsp::load_word(c + 4), w_even, b0);
      b0 = dsp::dual_multiply_add(dsp::load_word(c + 6), w_odd, b0);
    }
    for (int32_t k = 0; k < tail; ++k) {
      a0 = dsp::multiply_add(first_tail[k], w[whole + k], a0);
      b0 = dsp::multiply_add(second_tail[k], w[whole + k], b0);
    }
    store_both(r, a0, b0);
  }
}


// Per weight row, its share of the input zero point: input_offset times
// the row's weights' sum (wrapping, as the kernels' int32 sums do), so a
// kernel that starts each row's sum there may read raw int8 inputs.
inline void weight_row_terms(const int8_t* rows, int32_t count, int32_t depth, int32_t input_offset, int32_t* terms) {
  for (int32_t r = 0; r < count; ++r) {
    int32_t sum = 0;
    for (int32_t k = 0; k < depth; ++k) sum += rows[r * depth + k];
    terms[r] = static_cast<int32_t>(static_cast<uint32_t>(sum) * static_cast<uint32_t>(input_offset));
  }
}

// dot_rows_pair_to_s8_staged on two int8 columns read where they are (a
// 1x1 conv's input pixels; no column buffer): each row's sum starts from
// its weight_row_terms entry, so the values are only sign-extended as they
// are loaded. Rows go two at a time; a row pair's outputs of both columns
// are stored after its inner products, which read both columns whole, so
// the columns are read again after every row pair's stores.
template <StageForm kForm, bool kFullRange, class Access>
inline void dot_rows_pair_in_place_to_s8_staged(const int8_t* first, const int8_t* second, const int32_t* row_terms,
                                                const DotRowsOutput d, int8_t* first_out, int8_t* second_out,
                                                Access access) {
  const int32_t depth = d.depth, whole = depth / 4 * 4, tail = depth - whole, rows = d.rows;
  const ChannelStage* const stages = d.stages.table;
  const int32_t output_offset = d.output_offset, min = d.min, max = d.max;
  auto store_both = [=](int32_t r, int32_t first_acc, int32_t second_acc) DMO_ALWAYS_INLINE {
    const ChannelStage stage = stages[r];
    access.store(first_out + r,
                 static_cast<int8_t>(apply_stage<kForm, kFullRange>(stage, first_acc, output_offset, min, max)));
    access.store(second_out + r,
                 static_cast<int8_t>(apply_stage<kForm, kFullRange>(stage, second_acc, output_offset, min, max)));
  };
  const int8_t* w = d.packed_rows;
  int32_t r = 0;
  for (; r + 4 <= rows; r += 4) {
    for (int32_t half = 0; half < 2; ++half) {
      const int32_t row = r + 2 * half;
      int32_t a0 = row_terms[row], a1 = row_terms[row + 1];
      int32_t b0 = a0, b1 = a1;
      const int8_t* wp = w + 8 * half;
      // Four elements of depth of both columns against two rows.
      for (int32_t k = 0; k < whole; k += 4, wp += 16) {
        const uint32_t a = access.load_word(0, first + k), b = access.load_word(0, second + k);
        const uint32_t a_even = dsp::sign_extend_even_bytes(a), a_odd = dsp::sign_extend_odd_bytes(a);
        const uint32_t b_even = dsp::sign_extend_even_bytes(b), b_odd = dsp::sign_extend_odd_bytes(b);
        uint32_t word = dsp::load_word(wp);
        uint32_t w_even = dsp::sign_extend_even_bytes(word), w_odd = dsp::sign_extend_odd_bytes(word);
        a0 = dsp::dual_multiply_add(a_even, w_even, a0);
        a0 = dsp::dual_multiply_add(a_odd, w_odd, a0);
        b0 = dsp::dual_multiply_add(b_even, w_even, b0);
        b0 = dsp::dual_multiply_add(b_odd, w_odd, b0);
        word = dsp::load_word(wp + 4);
        w_even = dsp::sign_extend_even_bytes(word);
        w_odd = dsp::sign_extend_odd_bytes(word);
        a1 = dsp::dual_multiply_add(a_even, w_even, a1);
        a1 = dsp::dual_multiply_add(a_odd, w_odd, a1);
        b1 = dsp::dual_multiply_add(b_even, w_even, b1);
        b1 = dsp::dual_multiply_add(b_odd, w_odd, b1);
      }
      const int8_t* w_tail = w + 4 * whole + 2 * half * tail;
      for (int32_t k = 0; k < tail; ++k) {
        const int32_t x = access.load(0, first + whole + k), y = access.load(0, second + whole + k);
        a0 = dsp::multiply_add(x, w_tail[k], a0);
        a1 = dsp::multiply_add(x, w_tail[tail + k], a1);
        b0 = dsp::multiply_add(y, w_tail[k], b0);
        b1 = dsp::multiply_add(y, w_tail[tail + k], b1);
      }
      store_both(row, a0, b0);
      store_both(row + 1, a1, b1);
    }
    w += 4 * depth;
  }
  for (; r < rows; ++r, w += depth) {
    int32_t a0 = row_terms[r], b0 = a0;
    for (int32_t k = 0; k < whole; k += 4) {
      const uint32_t word = dsp::load_word(w + k);
      const uint32_t w_even = dsp::sign_extend_even_bytes(word), w_odd = dsp::sign_extend_odd_bytes(word);
      const uint32_t a = access.load_word(0, first + k), b = access.load_word(0, second + k);
      a0 = dsp::dual_multiply_add(dsp::sign_extend_even_bytes(a), w_even, a0);
      a0 = dsp::dual_multiply_add(dsp::sign_extend_odd_bytes(a), w_odd, a0);
      b0 = dsp::dual_multiply_add(dsp::sign_extend_even_bytes(b), w_even, b0);
      b0 = dsp::dual_multiply_add(dsp::sign_extend_odd_bytes(b), w_odd, b0);
    }
    for (int32_t k = whole; k < depth; ++k) {
      a0 = dsp::multiply_add(access.load(0, first + k), w[k], a0);
      b0 = dsp::multiply_add(access.load(0, second + k), w[k], b0);
    }
    store_both(r, a0, b0);
  }
}

}  // namespace dmo

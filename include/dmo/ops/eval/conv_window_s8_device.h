// The form of dmo's int8 CONV_2D device kernel that reads each output
// pixel's window where it is: no column buffer, so no scratch in the
// arena. One pixel at a time in the walk's order, four output channels at
// a time: each window row inside the input is one run of input (one run
// per tap where the taps are not adjacent), a word at a time split into
// its even and odd bytes (SXTB16), against the four channels' weights
// kept widened to int16 pairs in that order (pack_window_rows), two
// multiply-adds per instruction (SMLAD); then the four channels are
// stored. Every channel reads the same window, so each store follows the
// reads the reference's does (conv_loops.h: per pixel, per channel, read
// the window, store) and precedes the next pixel's: this form's O_s is at
// least the reference's. A window wholly inside the input starts each sum
// at the channel's share of the input zero point (weight_row_terms); a
// clipped one adds the zero point to every value it reads instead
// (padding taps add nothing, as in the reference). Freestanding.
#pragma once

#include <cstddef>
#include <cstdint>

#include "dmo/ops/eval/conv_loops.h"
#include "dmo/ops/eval/device_access.h"
#include "dmo/ops/eval/device_requantize.h"
#include "dmo/ops/eval/dsp_intrinsics.h"
#include "dmo/ops/eval/nhwc_layout.h"
#include "dmo/ops/eval/s8_dot_rows.h"
#include "dmo/ops/eval/taps.h"
#include "dmo/ops/eval/walk_index.h"

namespace dmo {

// Where pack_window_rows puts weight `p` of window row `fy` of row `i` in
// a group of `n` rows (four, or one after the last whole four), in int16
// elements from the group's start; `width` is a window row's elements
// (filter width x input depth). Per window row: per four elements, each
// row's even pair (elements 0 and 2) then odd pair (1 and 3), the order
// SXTB16 splits an input word in; then the row's last width % 4 elements,
// one per row at a time.
inline int32_t window_weight_index(int32_t n, int32_t width, int32_t i, int32_t fy, int32_t p) {
  const int32_t quads = width / 4;
  const int32_t at_row = fy * n * width;
  if (p < 4 * quads) {
    const int32_t lane = p % 4;
    return at_row + (p / 4 * n + i) * 4 + (lane & 1) * 2 + (lane >> 1);
  }
  return at_row + 4 * quads * n + (p - 4 * quads) * n + i;
}

// A conv's weights (`count` rows of fh x width elements) as the window
// form reads them: int16, twice the bytes. Generated code keeps them so.
inline void pack_window_rows(const int8_t* rows, int32_t count, int32_t filter_height, int32_t width,
                             int16_t* packed) {
  const int32_t depth = filter_height * width;
  for (int32_t r = 0; r < count;) {
    const int32_t n = r + 4 <= count ? 4 : 1;
    for (int32_t i = 0; i < n; ++i) {
      for (int32_t fy = 0; fy < filter_height; ++fy) {
        for (int32_t p = 0; p < width; ++p) {
          packed[r * depth + window_weight_index(n, width, i, fy, p)] = rows[(r + i) * depth + fy * width + p];
        }
      }
    }
    r += n;
  }
}

// The sums of a group of kRows output channels over one window's runs.
template <int32_t kRows>
struct RowSums {
  int32_t acc[kRows];
};

// Adds four input values, as their even and odd pairs (zero point
// removed), times the group's weights for them at `w` (kRows rows' even
// and odd pairs).
template <int32_t kRows>
DMO_ALWAYS_INLINE inline void add_window_pairs(RowSums<kRows>& s, uint32_t even, uint32_t odd, const int16_t* w) {
  auto add_row = [&]<int32_t kRow>() DMO_ALWAYS_INLINE {
    uint32_t even_pair, odd_pair;
    if constexpr (kRows == 4) {
      // A group of four rows starts on a word: one LDRD per row.
      dsp::load_two_words<8 * kRow>(w, even_pair, odd_pair);
    } else {
      even_pair = dsp::load_word(w);
      odd_pair = dsp::load_word(w + 2);
    }
    s.acc[kRow] = dsp::dual_multiply_add(even, even_pair, s.acc[kRow]);
    s.acc[kRow] = dsp::dual_multiply_add(odd, odd_pair, s.acc[kRow]);
  };
  add_row.template operator()<0>();
  if constexpr (kRows == 4) {
    add_row.template operator()<1>();
    add_row.template operator()<2>();
    add_row.template operator()<3>();
  }
}

// add_window_pairs of one input word; kClipped adds the input zero point
// to each value.
template <int32_t kRows, bool kClipped>
DMO_ALWAYS_INLINE inline void add_window_word(RowSums<kRows>& s, uint32_t word, const int16_t* w, uint32_t offsets) {
  uint32_t even = dsp::sign_extend_even_bytes(word), odd = dsp::sign_extend_odd_bytes(word);
  if constexpr (kClipped) {
    even = dsp::add_pairs(even, offsets);
    odd = dsp::add_pairs(odd, offsets);
  }
  add_window_pairs<kRows>(s, even, odd, w);
}

// Adds the run of `count` input values at `x` (input 0), window row `fy`
// from element `p0`, times the group's weights (`group`, kRows rows).
template <int32_t kRows, bool kClipped, class Access>
DMO_ALWAYS_INLINE inline void add_window_run(RowSums<kRows>& s, const int8_t* x, int32_t count, const int16_t* group,
                                             int32_t width, int32_t fy, int32_t p0, int32_t input_offset,
                                             Access access) {
  const int32_t quads = width / 4;
  const bool whole_words = p0 % 4 == 0 && (count % 4 == 0 || p0 + count == width);
  const int16_t* const row = group + fy * kRows * width;
  int32_t p = p0;  // the next element of the row to add
  const int32_t end = p0 + count;
  if (whole_words) {
    const uint32_t offsets = dsp::splat_pair(input_offset);
    const int16_t* w = row + p0 * kRows;
    for (; p + 4 <= end; p += 4, w += 4 * kRows) {
      add_window_word<kRows, kClipped>(s, access.load_word(0, x + (p - p0)), w, offsets);
    }
  } else {
    // A run of taps that starts or ends inside a word (a clipped row):
    // per word, the values it has paired as a word's would be, zero for
    // the elements outside the run (read nowhere).
    const int32_t quad_end = end < 4 * quads ? end : 4 * quads;
    while (p < quad_end) {
      const int32_t base = p / 4 * 4;
      auto value = [&](int32_t e) DMO_ALWAYS_INLINE {
        const int32_t at = base + e;
        return at >= p0 && at < end ? access.load(0, x + (at - p0)) + (kClipped ? input_offset : 0) : 0;
      };
      add_window_pairs<kRows>(s, dsp::make_pair(value(0), value(2)), dsp::make_pair(value(1), value(3)),
                              row + base * kRows);
      p = base + 4;
    }
  }
  // The row's last width % 4 elements, value by value, when the run
  // reaches them.
  const int16_t* const tail = row + 4 * quads * kRows;
  for (; p < end; ++p) {
    const int32_t value = access.load(0, x + (p - p0)) + (kClipped ? input_offset : 0);
    const int32_t t = p - 4 * quads;
#pragma GCC unroll 4
    for (int32_t i = 0; i < kRows; ++i) s.acc[i] = dsp::multiply_add(value, tail[t * kRows + i], s.acc[i]);
  }
}

// Adds a whole window of adjacent taps (filter_height runs of `width`
// values, `row_step` apart, from `x`): the group's weights are then one
// sequence, window row after window row.
template <int32_t kRows, class Access>
DMO_ALWAYS_INLINE inline void add_whole_window(RowSums<kRows>& s, const int8_t* x, ptrdiff_t row_step,
                                               int32_t filter_height, int32_t width, const int16_t* w,
                                               Access access) {
  const int32_t quad_bytes = width / 4 * 4, tail = width % 4;
  for (int32_t fy = 0; fy < filter_height; ++fy, x += row_step) {
    const int8_t* at = x;
    const int8_t* const end = x + quad_bytes;
    if (quad_bytes > 0) {
      // At least one word: tested at the end, not before.
      do {
        add_window_word<kRows, false>(s, access.load_word(0, at), w, 0);
        at += 4;
        w += 4 * kRows;
      } while (at != end);
    }
    for (int32_t t = 0; t < tail; ++t, w += kRows) {
      const int32_t value = access.load(0, at + t);
#pragma GCC unroll 4
      for (int32_t i = 0; i < kRows; ++i) s.acc[i] = dsp::multiply_add(value, w[i], s.acc[i]);
    }
  }
}

// The conv over the walk's pixels of io.region. `d` holds the weights
// (pack_window_rows) and output stages; `row_terms` the rows' shares of
// the input zero point.
template <StageForm kForm, bool kFullRange, class Requantization, class IO, class Access>
DMO_NOINLINE void conv_windows_in_place_s8(const ConvGeometry& g, const Requantization& q, const IO& io, const DotRowsOutput d,
                              const int32_t* row_terms, Access access) {
  const auto& in_ref = io.input(0);
  const auto& out_ref = io.output(0);
  const auto* input = reinterpret_cast<const int8_t*>(in_ref.data);
  auto* output = reinterpret_cast<int8_t*>(out_ref.data);
  const NhwcLayout in = NhwcLayout::of(in_ref);
  const NhwcLayout out = NhwcLayout::of(out_ref);
  // Locals, not loads through `d` or `q`: the int8 stores may alias anything.
  const int32_t depth = d.depth, rows = d.rows, input_offset = q.input_offset;
  const int32_t output_offset = d.output_offset, min = d.min, max = d.max;
  const ChannelStage* const stages = d.stages.table;
  const auto* const weights = reinterpret_cast<const int16_t*>(d.packed_rows);
  const int32_t tap_bytes = g.filter_depth, width = g.filter_width * tap_bytes;
  // A window row's taps are one run of input when they are adjacent pixels.
  const bool runs_whole_rows = g.dilation_width == 1 && in.col == tap_bytes;
  const ptrdiff_t tap_step = g.dilation_width * in.col, row_step = g.dilation_height * in.row;

  auto store = [=](int8_t* pixel, int32_t r, int32_t acc) DMO_ALWAYS_INLINE {
    access.store(pixel + r, static_cast<int8_t>(apply_stage<kForm, kFullRange>(stages[r], acc, output_offset, min, max)));
  };

  // One group of kRows channels of one pixel whose window's taps inside
  // the input span ys x xs from `first` (input) on: sums, then stores.
  auto group = [&]<int32_t kRows, bool kClipped>(int8_t* pixel, int32_t r, const int8_t* first, TapSpan ys,
                                                 TapSpan xs) DMO_ALWAYS_INLINE {
    RowSums<kRows> s;
#pragma GCC unroll 4
    for (int32_t i = 0; i < kRows; ++i) s.acc[i] = kClipped ? 0 : row_terms[r + i];
    const int16_t* rows_at = weights + r * depth;
    if (!kClipped && runs_whole_rows) {
      add_whole_window<kRows>(s, first, row_step, g.filter_height, width, rows_at, access);
    } else {
      const int32_t taps = xs.last - xs.first + 1, p0 = xs.first * tap_bytes;
      for (int32_t fy = ys.first; fy <= ys.last; ++fy, first += row_step) {
        if (runs_whole_rows) {
          add_window_run<kRows, kClipped>(s, first, taps * tap_bytes, rows_at, width, fy, p0, input_offset, access);
        } else {
          for (int32_t t = 0; t < taps; ++t) {
            add_window_run<kRows, kClipped>(s, first + t * tap_step, tap_bytes, rows_at, width, fy,
                                            p0 + t * tap_bytes, input_offset, access);
          }
        }
      }
    }
#pragma GCC unroll 4
    for (int32_t i = 0; i < kRows; ++i) store(pixel, r + i, s.acc[i]);
  };
  auto compute_pixel = [&]<bool kClipped>(int8_t* pixel, const int8_t* first, TapSpan ys, TapSpan xs)
                           DMO_ALWAYS_INLINE {
    int32_t r = 0;
    for (; r + 4 <= rows; r += 4) group.template operator()<4, kClipped>(pixel, r, first, ys, xs);
    for (; r < rows; ++r) group.template operator()<1, kClipped>(pixel, r, first, ys, xs);
  };

  const bool descending = io.descending;
  const IndexRange out_rows = io.region.rows(g.output_height);
  const IndexRange out_cols = io.region.cols(g.output_width);
  for (int32_t b = 0; b < g.batches; ++b) {
    const int32_t batch = walk_index(b, g.batches, descending);
    for (int32_t y = 0; y < out_rows.size(); ++y) {
      const int32_t out_y = walk_index(y, out_rows, descending);
      const int32_t in_y0 = out_y * g.stride_height - g.pad_height;
      const TapSpan ys = taps_inside_closed_form(in_y0, g.dilation_height, g.filter_height, g.input_height);
      for (int32_t x = 0; x < out_cols.size(); ++x) {
        const int32_t out_x = walk_index(x, out_cols, descending);
        const int32_t in_x0 = out_x * g.stride_width - g.pad_width;
        const TapSpan xs = taps_inside_closed_form(in_x0, g.dilation_width, g.filter_width, g.input_width);
        int8_t* const pixel = output + out.pixel(batch, out_y, out_x);
        if (ys.first > ys.last || xs.first > xs.last) {
          // Every tap is padding: each sum is zero.
          for (int32_t r = 0; r < rows; ++r) store(pixel, r, 0);
          continue;
        }
        const int8_t* first =
            input + in.pixel(batch, in_y0 + ys.first * g.dilation_height, in_x0 + xs.first * g.dilation_width);
        const bool whole = ys.first == 0 && ys.last == g.filter_height - 1 && xs.first == 0 &&
                           xs.last == g.filter_width - 1;
        if (whole) {
          compute_pixel.template operator()<false>(pixel, first, ys, xs);
        } else {
          compute_pixel.template operator()<true>(pixel, first, ys, xs);
        }
      }
    }
  }
}

}  // namespace dmo

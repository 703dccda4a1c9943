// dmo's int8 DEPTHWISE_CONV_2D for devices: per output pixel in the walk's
// order, with depth multiplier 1 four channels at a time, each tap one
// word of input and one of weights, split into even and odd channel pairs
// (SXTB16; a whole 3x3 window's weights widened ahead) and multiplied lane
// by lane (SMLABB, SMLATT), then the four channels stored; other channels
// one by one, read then stored, as the reference; with a larger
// multiplier, an input channel's taps read first, then its output
// channels four at a time (a whole 3x3 window's with SMLAD, others with
// SMLABB, SMLABT) computed and stored. A window wholly
// inside the input adds the input zero point's share per channel once (a
// table generated code keeps in flash), not per tap. A group's stores
// follow the reads of its own channels and of the next three, and precede
// every later read, so a layout safe for the reference order
// (depthwise_loops.h: per channel, read its taps, store) is safe here.
// Results are the reference's bit for bit. Freestanding.
#pragma once

#include <cstdint>

#include "dmo/ops/eval/conv_s8_device.h"
#include "dmo/ops/eval/depthwise_loops.h"
#include "dmo/ops/eval/device_requantize.h"
#include "dmo/ops/eval/nhwc_layout.h"
#include "dmo/ops/eval/s8_dot_rows.h"
#include "dmo/ops/eval/walk_index.h"

namespace dmo {

// Whether depthwise_s8_device computes this op: channels adjacent in storage.
template <class IO>
bool depthwise_s8_device_applies(const DepthwiseGeometry& g, const IO& io) {
  const auto& in = io.input(0);
  const auto& out = io.output(0);
  return g.depth_multiplier >= 1 && io.input(1).strides == nullptr && (in.strides == nullptr || in.strides[3] == 1) &&
         (out.strides == nullptr || out.strides[3] == 1);
}

// input_offset * (the sum of output channel c's weights over the whole
// window), per output channel: what generated code keeps in flash for a
// depthwise conv whose filter has no zero point (null for any other).
inline void depthwise_window_terms(const int8_t* weights, int32_t taps, int32_t channels, int32_t input_offset,
                                   int32_t* terms) {
  for (int32_t c = 0; c < channels; ++c) {
    int32_t sum = 0;
    for (int32_t t = 0; t < taps; ++t) sum += weights[t * channels + c];
    terms[c] = static_cast<int32_t>(static_cast<uint32_t>(sum) * static_cast<uint32_t>(input_offset));
  }
}

// A 3x3 filter as the unrolled whole-window paths read it, widened to
// int16 ahead so no instruction extends a weight. With depth multiplier
// 1: per group of four output channels, per tap, the pair of channels 0
// and 2 then the pair of 1 and 3 (the lanes SXTB16 gives an input word
// in), so one pointer with constant offsets reaches a group's taps, two
// words with one LDRD (the channels beyond the last whole group are not
// kept). With a larger multiplier: per output channel, its taps as five
// int16 pairs (taps 0 and 1, 2 and 3, 4 and 5, 6 and 7, then 8 and a
// zero), one SMLAD each against the window's values paired alike.
// Generated code keeps it in flash, word-aligned.
inline constexpr int32_t kWindowTaps3x3 = 9;
inline constexpr int32_t kTapPairBytes3x3 = 20;
inline constexpr int32_t kGroupTapBytes3x3 = 8;  // a tap of four channels, widened
inline int32_t packed_window_bytes(int32_t channels, int32_t multiplier) {
  return multiplier == 1 ? channels / 4 * kWindowTaps3x3 * kGroupTapBytes3x3 : channels * kTapPairBytes3x3;
}
inline void pack_windows_3x3(const int8_t* weights, int32_t channels, int32_t multiplier, int8_t* packed) {
  auto put = [&](int32_t w) {
    const auto half = static_cast<uint16_t>(static_cast<int16_t>(w));
    *packed++ = static_cast<int8_t>(half & 0xff);
    *packed++ = static_cast<int8_t>(half >> 8);
  };
  if (multiplier != 1) {
    for (int32_t c = 0; c < channels; ++c) {
      for (int32_t t = 0; t < kWindowTaps3x3 + 1; ++t) put(t < kWindowTaps3x3 ? weights[t * channels + c] : 0);
    }
    return;
  }
  for (int32_t c = 0; c + 4 <= channels; c += 4) {
    for (int32_t t = 0; t < kWindowTaps3x3; ++t) {
      for (int32_t b : {0, 2, 1, 3}) put(weights[t * channels + c + b]);
    }
  }
}

// The sums of four adjacent channels, a tap at a time: a word of input and
// one of weights, as even and odd channel pairs, multiplied lane by lane.
struct FourChannelSums {
  int32_t a0, a1, a2, a3;

  void add(uint32_t x_even, uint32_t x_odd, uint32_t w_even, uint32_t w_odd) {
    a0 = dsp::multiply_add_low(x_even, w_even, a0);
    a2 = dsp::multiply_add_high(x_even, w_even, a2);
    a1 = dsp::multiply_add_low(x_odd, w_odd, a1);
    a3 = dsp::multiply_add_high(x_odd, w_odd, a3);
  }
  // Words with no zero point to remove.
  void add_words(uint32_t x4, uint32_t w4) {
    add(dsp::sign_extend_even_bytes(x4), dsp::sign_extend_odd_bytes(x4), dsp::sign_extend_even_bytes(w4),
        dsp::sign_extend_odd_bytes(w4));
  }
  // One input value (no zero point to remove) against four channels' weights.
  void add_value(int32_t x, uint32_t w4) {
    const uint32_t w_even = dsp::sign_extend_even_bytes(w4), w_odd = dsp::sign_extend_odd_bytes(w4);
    const auto xv = static_cast<uint32_t>(x);
    a0 = dsp::multiply_add_low(xv, w_even, a0);
    a2 = dsp::multiply_add_low_by_high(xv, w_even, a2);
    a1 = dsp::multiply_add_low(xv, w_odd, a1);
    a3 = dsp::multiply_add_low_by_high(xv, w_odd, a3);
  }
};

// The most taps a depth multiplier above 1 keeps per input channel.
inline constexpr int32_t kMaxMultiplierTaps = 25;

// The kernel for one kind of output stage (device_requantize.h), as
// generated code names it.
template <StageForm kForm, bool kFullRange, class Requantization, class IO, class Access = DirectAccess>
void depthwise_s8_device_staged(const DepthwiseGeometry& g, const Requantization& q, const IO& io,
                                const ChannelStage* stages, const int32_t* window_terms,
                                const int8_t* packed_windows, Access access = {}) {
  const auto& in_ref = io.input(0);
  const auto& out_ref = io.output(0);
  const auto* input = reinterpret_cast<const int8_t*>(in_ref.data);
  const auto* weights = reinterpret_cast<const int8_t*>(io.input(1).data);
  auto* output = reinterpret_cast<int8_t*>(out_ref.data);
  const NhwcLayout in = NhwcLayout::of(in_ref);
  const NhwcLayout out = NhwcLayout::of(out_ref);
  // Locals, not loads through `q`: the int8 stores may alias anything.
  const int32_t output_offset = q.output_offset, lo = q.range.min, hi = q.range.max;
  const int32_t channels = g.output_depth;
  const int32_t multiplier = g.depth_multiplier;
  const int32_t input_offset = q.input_offset, filter_offset = q.filter_offset;
  const uint32_t input_offsets = dsp::splat_pair(input_offset);
  const uint32_t filter_offsets = dsp::splat_pair(filter_offset);
  const ptrdiff_t tap_row = g.dilation_height * in.row, tap_col = g.dilation_width * in.col;
  const ptrdiff_t weight_row = ptrdiff_t{g.filter_width} * channels;

  auto stage = [=](int8_t* pixel, int32_t c, int32_t acc) DMO_ALWAYS_INLINE {
    access.store(pixel + c, static_cast<int8_t>(apply_stage<kForm, kFullRange>(stages[c], acc, output_offset, lo, hi)));
  };
  auto store4 = [=](int8_t* pixel, int32_t c, const FourChannelSums& sums) DMO_ALWAYS_INLINE {
    stage(pixel, c, sums.a0);
    stage(pixel, c + 1, sums.a1);
    stage(pixel, c + 2, sums.a2);
    stage(pixel, c + 3, sums.a3);
  };

  // A window wholly inside the input takes every tap: there
  //   sum (x + input_offset) w = sum x w + input_offset * sum w,
  // the second term per channel in `window_terms` (depthwise_window_terms).
  const int32_t* const folded = filter_offset == 0 ? window_terms : nullptr;

  // One output pixel whose window's taps inside the input start at
  // `first_tap` (weights at `first_weights`) and span tap_rows x tap_cols.
  auto compute_pixel = [&](int8_t* pixel, const int8_t* first_tap, const int8_t* first_weights, int32_t tap_rows,
                           int32_t tap_cols) DMO_ALWAYS_INLINE {
    int32_t c = 0;
    if (multiplier == 1 && folded != nullptr && packed_windows != nullptr && tap_rows == 3 && tap_cols == 3 &&
        g.filter_height == 3 && g.filter_width == 3) {
      // The common whole 3x3 window, unrolled; each tap's words used up
      // before the next tap's are loaded (no spills on a Cortex-M).
      for (const int8_t* w = packed_windows; c + 4 <= channels; c += 4, w += kWindowTaps3x3 * kGroupTapBytes3x3) {
        FourChannelSums sums{folded[c], folded[c + 1], folded[c + 2], folded[c + 3]};
        const int8_t* in_row = first_tap + c;
        auto tap = [&]<int32_t kTap>(const int8_t* at) DMO_ALWAYS_INLINE {
          const uint32_t x4 = access.load_word(0, at);
          uint32_t w_even, w_odd;
          dsp::load_two_words<kTap * kGroupTapBytes3x3>(w, w_even, w_odd);
          sums.add(dsp::sign_extend_even_bytes(x4), dsp::sign_extend_odd_bytes(x4), w_even, w_odd);
          dsp::schedule_barrier();
        };
        tap.template operator()<0>(in_row);
        tap.template operator()<1>(in_row + tap_col);
        tap.template operator()<2>(in_row + 2 * tap_col);
        in_row += tap_row;
        tap.template operator()<3>(in_row);
        tap.template operator()<4>(in_row + tap_col);
        tap.template operator()<5>(in_row + 2 * tap_col);
        in_row += tap_row;
        tap.template operator()<6>(in_row);
        tap.template operator()<7>(in_row + tap_col);
        tap.template operator()<8>(in_row + 2 * tap_col);
        store4(pixel, c, sums);
      }
    }
    if (multiplier == 1 && folded != nullptr && tap_rows == g.filter_height && tap_cols == g.filter_width) {
      for (; c + 4 <= channels; c += 4) {
        FourChannelSums sums{folded[c], folded[c + 1], folded[c + 2], folded[c + 3]};
        const int8_t* in_row = first_tap + c;
        const int8_t* w_at = first_weights + c;
        for (int32_t fy = 0; fy < tap_rows; ++fy, in_row += tap_row) {
          const int8_t* at = in_row;
#pragma GCC unroll 3
          for (int32_t fx = 0; fx < tap_cols; ++fx, at += tap_col, w_at += channels) {
            sums.add_words(access.load_word(0, at), dsp::load_word(w_at));
          }
        }
        store4(pixel, c, sums);
      }
    }
    for (; multiplier == 1 && c + 4 <= channels; c += 4) {
      FourChannelSums sums{0, 0, 0, 0};
      const int8_t* in_row = first_tap + c;
      const int8_t* w_row = first_weights + c;
      for (int32_t fy = 0; fy < tap_rows; ++fy, in_row += tap_row, w_row += weight_row) {
        const int8_t* at = in_row;
        const int8_t* w_at = w_row;
        for (int32_t fx = 0; fx < tap_cols; ++fx, at += tap_col, w_at += channels) {
          const uint32_t x4 = access.load_word(0, at), w4 = dsp::load_word(w_at);
          sums.add(dsp::add_pairs(dsp::sign_extend_even_bytes(x4), input_offsets),
                   dsp::add_pairs(dsp::sign_extend_odd_bytes(x4), input_offsets),
                   dsp::add_pairs(dsp::sign_extend_even_bytes(w4), filter_offsets),
                   dsp::add_pairs(dsp::sign_extend_odd_bytes(w4), filter_offsets));
        }
      }
      store4(pixel, c, sums);
    }
    if (folded != nullptr && packed_windows != nullptr && multiplier > 1 && tap_rows == 3 && tap_cols == 3 &&
        g.filter_height == 3 && g.filter_width == 3) {
      // The whole 3x3 window of a multiplier above one (a MobileNet's
      // first layer: one input channel to eight): per input channel its
      // nine values read once, paired as the weights are
      // (pack_windows_3x3), then per output channel five SMLADs, stored
      // four at a time.
      for (int32_t ic = 0; ic < g.input_depth; ++ic) {
        const int8_t* in_row = first_tap + ic;
        int32_t x[kWindowTaps3x3];
        for (int32_t fy = 0; fy < 3; ++fy, in_row += tap_row) {
          x[3 * fy] = access.load(0, in_row);
          x[3 * fy + 1] = access.load(0, in_row + tap_col);
          x[3 * fy + 2] = access.load(0, in_row + 2 * tap_col);
        }
        const uint32_t x01 = dsp::make_pair(x[0], x[1]), x23 = dsp::make_pair(x[2], x[3]);
        const uint32_t x45 = dsp::make_pair(x[4], x[5]), x67 = dsp::make_pair(x[6], x[7]);
        const uint32_t x8 = static_cast<uint16_t>(x[8]);
        const int32_t first_channel = ic * multiplier;
        const int8_t* w = packed_windows + first_channel * kTapPairBytes3x3;
        auto window_sum = [&](const int8_t* taps, int32_t acc) DMO_ALWAYS_INLINE {
          acc = dsp::dual_multiply_add(x01, dsp::load_word(taps), acc);
          acc = dsp::dual_multiply_add(x23, dsp::load_word(taps + 4), acc);
          acc = dsp::dual_multiply_add(x45, dsp::load_word(taps + 8), acc);
          acc = dsp::dual_multiply_add(x67, dsp::load_word(taps + 12), acc);
          return dsp::dual_multiply_add(x8, dsp::load_word(taps + 16), acc);
        };
        int32_t m = 0;
        for (; m + 4 <= multiplier; m += 4, w += 4 * kTapPairBytes3x3) {
          const int32_t c = first_channel + m;
          const FourChannelSums sums{window_sum(w, folded[c]), window_sum(w + kTapPairBytes3x3, folded[c + 1]),
                                     window_sum(w + 2 * kTapPairBytes3x3, folded[c + 2]),
                                     window_sum(w + 3 * kTapPairBytes3x3, folded[c + 3])};
          store4(pixel, c, sums);
        }
        for (; m < multiplier; ++m, w += kTapPairBytes3x3) {
          stage(pixel, first_channel + m, window_sum(w, folded[first_channel + m]));
        }
      }
      return;
    }
    if (multiplier > 1 && filter_offset == 0 && tap_rows * tap_cols <= kMaxMultiplierTaps) {
      // Each input channel's taps read once (zero point removed), then
      // its `multiplier` output channels, four at a time.
      int32_t x[kMaxMultiplierTaps];
      for (int32_t ic = 0; ic < g.input_depth; ++ic) {
        int32_t n = 0;
        const int8_t* in_row = first_tap + ic;
        for (int32_t fy = 0; fy < tap_rows; ++fy, in_row += tap_row) {
          for (int32_t fx = 0; fx < tap_cols; ++fx) x[n++] = access.load(0, in_row + fx * tap_col) + input_offset;
        }
        const int32_t first_channel = ic * multiplier;
        int32_t m = 0;
        for (; m + 4 <= multiplier; m += 4) {
          int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
          const int8_t* w_row = first_weights + first_channel + m;
          n = 0;
          for (int32_t fy = 0; fy < tap_rows; ++fy, w_row += weight_row) {
            const int8_t* w_at = w_row;
            for (int32_t fx = 0; fx < tap_cols; ++fx, w_at += channels) {
              const uint32_t w4 = dsp::load_word(w_at), xv = static_cast<uint32_t>(x[n++]);
              const uint32_t w_even = dsp::sign_extend_even_bytes(w4), w_odd = dsp::sign_extend_odd_bytes(w4);
              a0 = dsp::multiply_add_low(xv, w_even, a0);
              a2 = dsp::multiply_add_low_by_high(xv, w_even, a2);
              a1 = dsp::multiply_add_low(xv, w_odd, a1);
              a3 = dsp::multiply_add_low_by_high(xv, w_odd, a3);
            }
          }
          stage(pixel, first_channel + m, a0);
          stage(pixel, first_channel + m + 1, a1);
          stage(pixel, first_channel + m + 2, a2);
          stage(pixel, first_channel + m + 3, a3);
        }
        for (; m < multiplier; ++m) {
          int32_t acc = 0;
          const int8_t* w_row = first_weights + first_channel + m;
          n = 0;
          for (int32_t fy = 0; fy < tap_rows; ++fy, w_row += weight_row) {
            for (int32_t fx = 0; fx < tap_cols; ++fx) acc = dsp::multiply_add(x[n++], w_row[fx * channels], acc);
          }
          stage(pixel, first_channel + m, acc);
        }
      }
      return;
    }
    for (; c < channels; ++c) {
      int32_t acc = 0;
      const int8_t* in_row = first_tap + c / multiplier;
      const int8_t* w_row = first_weights + c;
      for (int32_t fy = 0; fy < tap_rows; ++fy, in_row += tap_row, w_row += weight_row) {
        for (int32_t fx = 0; fx < tap_cols; ++fx) {
          acc = dsp::multiply_add(access.load(0, in_row + fx * tap_col) + input_offset,
                                  w_row[fx * channels] + filter_offset, acc);
        }
      }
      stage(pixel, c, acc);
    }
  };

  const bool descending = io.descending;
  const IndexRange rows = io.region.rows(g.output_height);
  const IndexRange cols = io.region.cols(g.output_width);
  // Output columns whose window is inside the input's width:
  // out_x * stride - pad >= 0 and out_x * stride - pad + (filter - 1) * dilation < width.
  const int32_t first_inner = (g.pad_width + g.stride_width - 1) / g.stride_width;
  const int32_t last_start = g.input_width - 1 - (g.filter_width - 1) * g.dilation_width + g.pad_width;
  const int32_t end_inner = last_start < 0 ? 0 : last_start / g.stride_width + 1;
  const IndexRange inner_columns{cols.begin > first_inner ? cols.begin : first_inner,
                                 cols.end < end_inner ? cols.end : end_inner};
  for (int32_t b = 0; b < g.batches; ++b) {
    const int32_t batch = walk_index(b, g.batches, descending);
    for (int32_t y = 0; y < rows.size(); ++y) {
      const int32_t out_y = walk_index(y, rows, descending);
      const int32_t in_y0 = out_y * g.stride_height - g.pad_height;
      const TapSpan ys = taps_inside_closed_form(in_y0, g.dilation_height, g.filter_height, g.input_height);
      // The row's pixels whose whole window lies inside the input need no
      // clipping: their pointers are one multiply-add away.
      const bool whole_rows = ys.first == 0 && ys.last == g.filter_height - 1;
      const IndexRange inner = whole_rows ? inner_columns : IndexRange{};
      const int8_t* const input_row = whole_rows ? input + in.pixel(batch, in_y0, 0) : input;
      int8_t* const out_row = output + out.pixel(batch, out_y, 0);
      for (int32_t x = 0; x < cols.size(); ++x) {
        const int32_t out_x = walk_index(x, cols, descending);
        const int32_t in_x0 = out_x * g.stride_width - g.pad_width;
        int8_t* const pixel = out_row + out_x * out.col;
        if (out_x >= inner.begin && out_x < inner.end) {
          compute_pixel(pixel, input_row + in_x0 * in.col, weights, g.filter_height, g.filter_width);
          continue;
        }
        const TapSpan xs = taps_inside_closed_form(in_x0, g.dilation_width, g.filter_width, g.input_width);
        if (ys.first > ys.last || xs.first > xs.last) {
          for (int32_t c = 0; c < channels; ++c) stage(pixel, c, 0);
          continue;
        }
        const int8_t* first_tap =
            input + in.pixel(batch, in_y0 + ys.first * g.dilation_height, in_x0 + xs.first * g.dilation_width);
        const int8_t* first_weights = weights + (ys.first * g.filter_width + xs.first) * channels;
        compute_pixel(pixel, first_tap, first_weights, ys.last - ys.first + 1, xs.last - xs.first + 1);
      }
    }
  }
}

template <class Requantization, class IO, class Access = DirectAccess>
void depthwise_s8_device(const DepthwiseGeometry& g, const Requantization& q, const IO& io,
                         ChannelStages stages, const int32_t* window_terms, const int8_t* packed_windows,
                         Access access = {}) {
  with_output_stage(stages.form, q.range.min, q.range.max, [&]<StageForm kForm, bool kFullRange>() {
    depthwise_s8_device_staged<kForm, kFullRange>(g, q, io, stages.table, window_terms, packed_windows, access);
  });
}

}  // namespace dmo

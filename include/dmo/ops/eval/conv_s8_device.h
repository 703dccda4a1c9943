// dmo's int8 CONV_2D for devices, two output pixels at a time in the
// walk's order. In general each pixel's window is read once into a column
// (int16, zero point removed, padding taps as zero), then every output
// channel is its inner product with one filter row (s8_dot_rows.h; the
// filter's rows packed by pack_weight_rows), and the pixels' channels are
// stored: every store of a pair follows every read of both windows. Where
// the filter has no zero point the input is read where it is instead (no
// scratch at all), each row's sum starting from its share of the input
// zero point (weight_row_terms): a 1x1 conv without padding two pixels at
// a time, read again after each pair of channels is stored, which lets
// fewer of the input's bytes be overwritten early; any other conv one
// window at a time (conv_window_s8_device.h). The plan takes the O_s of
// whichever form the generated code calls. Results are the reference's
// bit for bit. Freestanding.
#pragma once

#include <cstdint>

#include "dmo/ops/eval/conv_loops.h"
#include "dmo/ops/eval/conv_window_s8_device.h"
#include "dmo/ops/eval/device_access.h"
#include "dmo/ops/eval/nhwc_layout.h"
#include "dmo/ops/eval/s8_dot_rows.h"
#include "dmo/ops/eval/walk_index.h"

namespace dmo {

// Scratch of the int8 conv device kernel: two windows of int8 input and
// their int16 columns; sized by the generated code for its largest conv
// (conv_scratch_elements).
struct DeviceColumnBuffers {
  int8_t* gather = nullptr;
  int16_t* column = nullptr;
};

// Whether conv_s8_device reads this conv's input pixels in place (given
// weight_row_terms): a 1x1 window inside the input, no filter zero point,
// at most kInPlaceMaxOutputChannels output channels. Up to 32 channels the
// in-place form is also the faster one (a column serves too few rows to
// repay widening it); at 64 it costs a few percent of the op and saves
// the column buffer, which sits beside the widest tensors of a model's
// early layers; wider layers keep the column form.
inline constexpr int32_t kInPlaceMaxOutputChannels = 64;
inline bool conv_reads_pixels_in_place(const ConvGeometry& g, int32_t filter_offset) {
  return g.filter_height == 1 && g.filter_width == 1 && g.pad_height == 0 && g.pad_width == 0 &&
         filter_offset == 0 && g.output_depth <= kInPlaceMaxOutputChannels;
}

// Whether a conv gathers its windows in the column form: a 1x1 window
// inside the input (no padding) is read in place.
inline bool conv_gathers_windows(const ConvGeometry& g) {
  return g.filter_height * g.filter_width > 1 || g.pad_height > 0 || g.pad_width > 0;
}

// Whether conv_s8_device reads this conv's windows in place, one pixel at
// a time (given weight_row_terms): any window a column would gather, no
// filter zero point (int8 convs have none; the column form stays for
// filters that do). The column form's scratch sits beside a model's
// widest early tensors, often at the peak; this form needs none, keeps
// at least the reference's O_s, and with its int16 weights runs faster.
inline bool conv_reads_windows_in_place(const ConvGeometry& g, int32_t filter_offset) {
  return filter_offset == 0 && conv_gathers_windows(g);
}

// Whether conv_s8_device reads its input in place, in either form: it
// then needs weight_row_terms and no scratch.
inline bool conv_reads_input_in_place(const ConvGeometry& g, int32_t filter_offset) {
  return conv_reads_pixels_in_place(g, filter_offset) || conv_reads_windows_in_place(g, filter_offset);
}

// The elements a conv's column holds (its weight rows' length).
inline int32_t conv_column_depth(const ConvGeometry& g) { return g.filter_height * g.filter_width * g.filter_depth; }

// The gather and column elements conv_s8_device uses: two pixels' worth.
inline int32_t conv_scratch_elements(const ConvGeometry& g) { return 2 * conv_column_depth(g); }

// The same as one block (generated code's scratch buffer in the arena):
// the int16 columns first, then the int8 windows where it gathers them.
inline int64_t device_conv_scratch_bytes(const ConvGeometry& g) {
  return int64_t{conv_gathers_windows(g) ? 3 : 2} * conv_scratch_elements(g);
}
inline DeviceColumnBuffers conv_scratch_block(uint8_t* block, const ConvGeometry& g) {
  return {reinterpret_cast<int8_t*>(block + 2 * conv_scratch_elements(g)), reinterpret_cast<int16_t*>(block)};
}

// Whether conv_s8_device computes this conv: not grouped, channels
// adjacent in storage (a band or a view keeps them so).
template <class IO>
bool conv_s8_device_applies(const ConvGeometry& g, const IO& io) {
  const auto& in = io.input(0);
  const auto& out = io.output(0);
  return g.filter_depth == g.input_depth && g.filters_per_group == g.output_depth && io.input(1).strides == nullptr &&
         (in.strides == nullptr || in.strides[3] == 1) && (out.strides == nullptr || out.strides[3] == 1);
}

// `count` elements of input 0 from `from` into a scratch buffer.
template <class Access>
inline void gather_s8(int8_t* to, const int8_t* from, int32_t count, Access access) {
  int32_t k = 0;
  for (; k + 4 <= count; k += 4) dsp::store_word(to + k, access.load_word(0, from + k));
  for (; k < count; ++k) to[k] = access.load(0, from + k);
}

inline void fill_s8(int8_t* to, int8_t value, int32_t count) {
  for (int32_t k = 0; k < count; ++k) to[k] = value;
}

// The kernel for one kind of output stage (device_requantize.h): generated
// code names the kind its op needs, so only that one is compiled in.
// `row_terms` (weight_row_terms, where conv_reads_input_in_place holds)
// selects the in-place forms; nullptr the column form, with `scratch`.
template <StageForm kForm, bool kFullRange, class Requantization, class IO, class Access = DirectAccess>
void conv_s8_device_staged(const ConvGeometry& g, const Requantization& q, const IO& io, ChannelStages stages,
                           DeviceColumnBuffers scratch, const int32_t* row_terms, Access access = {}) {
  const auto& in_ref = io.input(0);
  const auto& out_ref = io.output(0);
  const auto* input = reinterpret_cast<const int8_t*>(in_ref.data);
  const auto* weights = reinterpret_cast<const int8_t*>(io.input(1).data);
  auto* output = reinterpret_cast<int8_t*>(out_ref.data);
  const NhwcLayout in = NhwcLayout::of(in_ref);
  const NhwcLayout out = NhwcLayout::of(out_ref);
  const int32_t depth = conv_column_depth(g);
  const DotRowsOutput rows_out{weights, g.output_depth, depth, stages, q.output_offset, q.range.min, q.range.max};
  if (row_terms != nullptr && conv_gathers_windows(g)) {
    conv_windows_in_place_s8<kForm, kFullRange>(g, q, io, rows_out, row_terms, access);
    return;
  }
  const int32_t tap_bytes = g.filter_depth;
  // The input value whose column entry is zero: padding taps add nothing.
  const auto pad_value = static_cast<int8_t>(-q.input_offset);
  const bool one_by_one = g.filter_height == 1 && g.filter_width == 1;
  // A window row is one run of input when its taps are adjacent pixels.
  const bool rows_contiguous = g.dilation_width == 1 && in.col == tap_bytes;

  // The window of output pixel (out_y, out_x) as `depth` int8 values: the
  // input itself for a 1x1 tap inside it, else gathered into `to`.
  auto window = [&](int32_t batch, int32_t out_y, int32_t out_x, int8_t* to) -> const int8_t* {
    const int32_t in_y0 = out_y * g.stride_height - g.pad_height;
    const int32_t in_x0 = out_x * g.stride_width - g.pad_width;
    const TapSpan ys = taps_inside_closed_form(in_y0, g.dilation_height, g.filter_height, g.input_height);
    const TapSpan xs = taps_inside_closed_form(in_x0, g.dilation_width, g.filter_width, g.input_width);
    if (one_by_one && ys.first == 0 && xs.first == 0) return input + in.pixel(batch, in_y0, in_x0);
    const int8_t* const gathered = to;
    const bool whole_rows = rows_contiguous && xs.first == 0 && xs.last == g.filter_width - 1;
    for (int32_t fy = 0; fy < g.filter_height; ++fy) {
      const int32_t in_y = in_y0 + fy * g.dilation_height;
      if (fy < ys.first || fy > ys.last) {
        fill_s8(to, pad_value, g.filter_width * tap_bytes);
        to += g.filter_width * tap_bytes;
        continue;
      }
      if (whole_rows) {
        gather_s8(to, input + in.pixel(batch, in_y, in_x0), g.filter_width * tap_bytes, access);
        to += g.filter_width * tap_bytes;
        continue;
      }
      for (int32_t fx = 0; fx < g.filter_width; ++fx, to += tap_bytes) {
        if (fx < xs.first || fx > xs.last) {
          fill_s8(to, pad_value, tap_bytes);
        } else {
          gather_s8(to, input + in.pixel(batch, in_y, in_x0 + fx * g.dilation_width), tap_bytes, access);
        }
      }
    }
    return gathered;
  };
  // (w + filter_offset) . column = w . column + filter_offset * sum(column)
  auto offset_term = [&](int32_t column_sum) {
    return static_cast<int32_t>(static_cast<uint32_t>(q.filter_offset) * static_cast<uint32_t>(column_sum));
  };

  // Two pixels at a time in the walk's order (both windows read, then both
  // stored), each weight word serving both; an odd last pixel alone.
  const bool descending = io.descending;
  const IndexRange rows = io.region.rows(g.output_height);
  const IndexRange cols = io.region.cols(g.output_width);
  const int32_t width = cols.size(), per_batch = rows.size() * width;
  if (row_terms != nullptr) {
    // In place: an odd last pixel goes as a pair with itself.
    for (int32_t b = 0; b < g.batches; ++b) {
      const int32_t batch = walk_index(b, g.batches, descending);
      for (int32_t i = 0; i < per_batch; i += 2) {
        const int32_t j = i + 1 < per_batch ? i + 1 : i;
        const int32_t first_y = walk_index(i / width, rows, descending);
        const int32_t first_x = walk_index(i % width, cols, descending);
        const int32_t second_y = walk_index(j / width, rows, descending);
        const int32_t second_x = walk_index(j % width, cols, descending);
        dot_rows_pair_in_place_to_s8_staged<kForm, kFullRange>(
            input + in.pixel(batch, first_y * g.stride_height, first_x * g.stride_width),
            input + in.pixel(batch, second_y * g.stride_height, second_x * g.stride_width), row_terms, rows_out,
            output + out.pixel(batch, first_y, first_x), output + out.pixel(batch, second_y, second_x), access);
      }
    }
    return;
  }
  for (int32_t b = 0; b < g.batches; ++b) {
    const int32_t batch = walk_index(b, g.batches, descending);
    int32_t i = 0;
    for (; i + 2 <= per_batch; i += 2) {
      const int32_t first_y = walk_index(i / width, rows, descending);
      const int32_t first_x = walk_index(i % width, cols, descending);
      const int32_t second_y = walk_index((i + 1) / width, rows, descending);
      const int32_t second_x = walk_index((i + 1) % width, cols, descending);
      const int8_t* first = window(batch, first_y, first_x, scratch.gather);
      const int8_t* second = window(batch, second_y, second_x, scratch.gather + depth);
      const ColumnSums sums = widen_column_pair(first, second, depth, q.input_offset, scratch.column, access);
      dot_rows_pair_to_s8_staged<kForm, kFullRange>(scratch.column, offset_term(sums.first), offset_term(sums.second), rows_out,
                          output + out.pixel(batch, first_y, first_x), output + out.pixel(batch, second_y, second_x),
                          access);
    }
    if (i < per_batch) {
      const int32_t out_y = walk_index(i / width, rows, descending);
      const int32_t out_x = walk_index(i % width, cols, descending);
      const int32_t column_sum =
          widen_column(window(batch, out_y, out_x, scratch.gather), depth, q.input_offset, scratch.column, access);
      dot_rows_to_s8_staged<kForm, kFullRange>(WidenedColumn{scratch.column}, offset_term(column_sum), rows_out,
                     output + out.pixel(batch, out_y, out_x), access);
    }
  }
}

// Any kind of output stage, chosen once per call.
template <class Requantization, class IO, class Access = DirectAccess>
void conv_s8_device(const ConvGeometry& g, const Requantization& q, const IO& io, ChannelStages stages,
                    DeviceColumnBuffers scratch, const int32_t* row_terms, Access access = {}) {
  with_output_stage(stages.form, q.range.min, q.range.max, [&]<StageForm kForm, bool kFullRange>() {
    conv_s8_device_staged<kForm, kFullRange>(g, q, io, stages, scratch, row_terms, access);
  });
}

}  // namespace dmo

// AVERAGE_POOL_2D and MAX_POOL_2D in the cmsis-nn families, mirroring TFLM's
// kernels/cmsis_nn/pooling.cc (AverageEval / MaxEval and their INT8 and
// INT16 paths): INT8 and INT16 go to CMSIS-NN, FLOAT32 and UINT8 to TFLM's
// reference kernels. CMSIS-NN sources read (ARM-software/CMSIS-NN):
// Source/PoolingFunctions/arm_avgpool_s8.c at 72647c8b, arm_avgpool_s16.c at
// 46fee474, arm_max_pool_s8.c and arm_max_pool_s16.c at f08b3617,
// arm_avgpool_get_buffer_sizes_s8.c at 6ebba504. The glue
// (PopulateCommonParams) passes one batch (input_dims.n = 1), so CMSIS-NN
// pools only the first: dmo refuses more than one batch in these families
// rather than mirror an output left half unwritten.
//  - arm_avgpool_s8 / _s16, portable C: per output pixel and channel, the
//    clipped window summed, then one store (TFLM's reference order).
//  - arm_avgpool_s8 / _s16, DSP: per output pixel, every tap's whole
//    channel vector accumulated into the int32 scratch buffer (the first
//    tap copied into it), then the pixel's channels divided and stored. The
//    glue requests that buffer: channels * 4 bytes.
//  - arm_max_pool_s8 / _s16 (no DSP-specific path): per output pixel, the
//    first tap's channel vector memcpy'd into the output, every further tap
//    compared into it 4 bytes at a time (output word read, input word read,
//    output word written; an element tail compared and written only when
//    larger); after the whole batch, the activation clamp in place, a word
//    at a time. The memcpy from the input is taken as all its stores before
//    its loads (ops/memory_policy.h): each pixel's copy must land wholly
//    below the tap it copies.
// Values are TFLM's: averages rounded half away from zero, then clamped.
#include <algorithm>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "../elementwise.h"
#include "cmsis_nn_kernels.h"
#include "dmo/ops/activation_range.h"
#include "dmo/ops/kernels.h"
#include "dmo/ops/padding.h"

namespace dmo {
namespace {

struct CmsisPoolGeometry {
  int32_t batches = 0, input_height = 0, input_width = 0, channels = 0;
  int32_t output_height = 0, output_width = 0;
  int32_t stride_height = 1, stride_width = 1, filter_height = 1, filter_width = 1;
  int32_t pad_height = 0, pad_width = 0;
  QuantizedRange range{0, 0};

  // The window of output (out_y, out_x) clipped to the input, as input rows
  // [y_begin, y_end) and columns [x_begin, x_end).
  struct Window {
    int32_t y_begin, y_end, x_begin, x_end;
  };
  Window window(int32_t out_y, int32_t out_x) const {
    const int32_t in_y = out_y * stride_height - pad_height;
    const int32_t in_x = out_x * stride_width - pad_width;
    return Window{std::max(0, in_y), std::min(input_height, in_y + filter_height), std::max(0, in_x),
                  std::min(input_width, in_x + filter_width)};
  }
  int64_t input_pixel(int32_t batch, int32_t y, int32_t x) const {
    return ((int64_t{batch} * input_height + y) * input_width + x) * channels;
  }
  int64_t output_pixel(int32_t batch, int32_t y, int32_t x) const {
    return ((int64_t{batch} * output_height + y) * output_width + x) * channels;
  }
};

CmsisPoolGeometry cmsis_pool_geometry(const OpContext& ctx) {
  const auto& params = std::get<Pool2DParams>(ctx.op->params);
  const TensorRef& in = ctx.input(0);
  const TensorRef& out = ctx.output(0);
  CmsisPoolGeometry g;
  g.batches = in.dim(0);
  g.input_height = in.dim(1);
  g.input_width = in.dim(2);
  g.channels = in.dim(3);
  g.output_height = out.dim(1);
  g.output_width = out.dim(2);
  g.stride_height = params.stride_h;
  g.stride_width = params.stride_w;
  g.filter_height = params.filter_h;
  g.filter_width = params.filter_w;
  g.pad_height = window_padding_before(g.input_height, g.filter_height, g.stride_height, 1, g.output_height);
  g.pad_width = window_padding_before(g.input_width, g.filter_width, g.stride_width, 1, g.output_width);
  g.range = quantized_activation_range(params.activation, *out.tensor);
  return g;
}

// TFLM's integer average: rounded half away from zero, then clamped.
int32_t rounded_average(int32_t sum, int32_t count, const QuantizedRange& range) {
  const int32_t average = sum > 0 ? (sum + count / 2) / count : (sum - count / 2) / count;
  return std::min(std::max(average, range.min), range.max);
}

template <typename T>
struct CmsisAveragePool {
  CmsisPoolGeometry g;
  bool dsp = false;
  mutable std::vector<int32_t> sums;  // the DSP path's scratch buffer: one sum per channel

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const TensorRef& in = io.input(0);
    const TensorRef& out = io.output(0);
    for (int32_t b = 0; b < g.batches; ++b) {
      for (int32_t oy = 0; oy < g.output_height; ++oy) {
        for (int32_t ox = 0; ox < g.output_width; ++ox) {
          const auto w = g.window(oy, ox);
          const int32_t count = (w.y_end - w.y_begin) * (w.x_end - w.x_begin);
          const int64_t o = g.output_pixel(b, oy, ox);
          if (dsp) {
            bool first = true;
            for (int32_t y = w.y_begin; y < w.y_end; ++y) {
              for (int32_t x = w.x_begin; x < w.x_end; ++x) {
                const int64_t i = g.input_pixel(b, y, x);
                for (int32_t c = 0; c < g.channels; ++c) {
                  const int32_t value = mem.template load<T>(in, i + c);
                  sums[static_cast<size_t>(c)] = first ? value : sums[static_cast<size_t>(c)] + value;
                }
                first = false;
              }
            }
            for (int32_t c = 0; c < g.channels; ++c) {
              mem.template store<T>(out, o + c, static_cast<T>(rounded_average(sums[static_cast<size_t>(c)], count, g.range)));
            }
          } else {
            for (int32_t c = 0; c < g.channels; ++c) {
              int32_t sum = 0;
              for (int32_t y = w.y_begin; y < w.y_end; ++y) {
                for (int32_t x = w.x_begin; x < w.x_end; ++x) sum += mem.template load<T>(in, g.input_pixel(b, y, x) + c);
              }
              mem.template store<T>(out, o + c, static_cast<T>(rounded_average(sum, count, g.range)));
            }
          }
        }
      }
    }
  }
};

template <typename T>
struct CmsisMaxPool {
  CmsisPoolGeometry g;
  // CMSIS-NN's word: 4 int8 or 2 int16 elements per 32-bit access.
  static constexpr int32_t kPerWord = static_cast<int32_t>(4 / sizeof(T));

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const TensorRef& in = io.input(0);
    const TensorRef& out = io.output(0);
    for (int32_t b = 0; b < g.batches; ++b) {
      for (int32_t oy = 0; oy < g.output_height; ++oy) {
        for (int32_t ox = 0; ox < g.output_width; ++ox) {
          const auto w = g.window(oy, ox);
          const int64_t o = g.output_pixel(b, oy, ox);
          bool first = true;
          for (int32_t y = w.y_begin; y < w.y_end; ++y) {
            for (int32_t x = w.x_begin; x < w.x_end; ++x) {
              const int64_t i = g.input_pixel(b, y, x);
              if (first) mem.template copy<T>(out, o, in, i, g.channels);
              else compare_and_replace_if_larger(mem, out, o, in, i);
              first = false;
            }
          }
        }
      }
      clamp_in_place(mem, out, g.output_pixel(b, 0, 0), int64_t{g.output_height} * g.output_width * g.channels);
    }
  }

  template <class Memory>
  void compare_and_replace_if_larger(Memory& mem, const TensorRef& out, int64_t o, const TensorRef& in,
                                     int64_t i) const {
    int32_t c = 0;
    for (; c + kPerWord <= g.channels; c += kPerWord) {
      T current[kPerWord], candidate[kPerWord];
      for (int32_t k = 0; k < kPerWord; ++k) current[k] = mem.template load<T>(out, o + c + k);
      for (int32_t k = 0; k < kPerWord; ++k) candidate[k] = mem.template load<T>(in, i + c + k);
      for (int32_t k = 0; k < kPerWord; ++k) mem.template store<T>(out, o + c + k, std::max(current[k], candidate[k]));
    }
    for (; c < g.channels; ++c) {
      const T candidate = mem.template load<T>(in, i + c);
      if (candidate > mem.template load<T>(out, o + c)) mem.template store<T>(out, o + c, candidate);
    }
  }

  template <class Memory>
  void clamp_in_place(Memory& mem, const TensorRef& out, int64_t begin, int64_t length) const {
    auto clamped = [this](T v) { return static_cast<T>(std::min<int32_t>(std::max<int32_t>(v, g.range.min), g.range.max)); };
    int64_t e = 0;
    for (; e + kPerWord <= length; e += kPerWord) {
      T word[kPerWord];
      for (int32_t k = 0; k < kPerWord; ++k) word[k] = mem.template load<T>(out, begin + e + k);
      for (int32_t k = 0; k < kPerWord; ++k) mem.template store<T>(out, begin + e + k, clamped(word[k]));
    }
    for (; e < length; ++e) mem.template store<T>(out, begin + e, clamped(mem.template load<T>(out, begin + e)));
  }
};

std::string with_path(const char* function, KernelFamily family) {
  return std::string(function) + (family == KernelFamily::kCmsisNnDsp ? " (DSP)" : " (portable C)");
}

// The glue hands CMSIS-NN one batch only.
CmsisPoolGeometry single_batch_geometry(const OpContext& ctx, const char* function) {
  CmsisPoolGeometry g = cmsis_pool_geometry(ctx);
  ctx.require(g.batches == 1, fmt::format("TFLM's cmsis_nn glue runs {} on the first of the input's {} batches only; "
                                          "one batch is supported",
                                          function, g.batches));
  return g;
}

template <typename T>
PreparedKernel cmsis_average_pool(const OpContext& ctx, const char* function) {
  CmsisAveragePool<T> k;
  k.g = single_batch_geometry(ctx, function);
  k.dsp = ctx.family == KernelFamily::kCmsisNnDsp;
  if (k.dsp) k.sums.assign(static_cast<size_t>(k.g.channels), 0);
  const int32_t channels = k.g.channels;
  const bool dsp = k.dsp;
  PreparedKernel prepared = PreparedKernel::of(std::move(k));
  prepared.implementation = with_path(function, ctx.family);
  // arm_avgpool_s8/_s16_get_buffer_size: channels int32 sums on the DSP path, nothing otherwise.
  if (dsp) prepared.scratch.push_back(KernelScratch{int64_t{channels} * 4, "int32 sum per channel of one output pixel"});
  return prepared;
}

template <typename T>
PreparedKernel cmsis_max_pool(const OpContext& ctx, const char* function) {
  PreparedKernel prepared = PreparedKernel::of(CmsisMaxPool<T>{single_batch_geometry(ctx, function)});
  prepared.implementation = with_path(function, ctx.family);
  return prepared;
}

}  // namespace

std::optional<PreparedKernel> prepare_cmsis_nn_average_pool_2d(const OpContext& ctx) {
  // The reference prepare makes TFLM's checks; its kernel is not used.
  prepare_average_pool_2d(ctx);
  switch (ctx.input(0).type()) {
    case DataType::kInt8: return cmsis_average_pool<int8_t>(ctx, "arm_avgpool_s8");
    case DataType::kInt16: return cmsis_average_pool<int16_t>(ctx, "arm_avgpool_s16");
    default: return std::nullopt;
  }
}

std::optional<PreparedKernel> prepare_cmsis_nn_max_pool_2d(const OpContext& ctx) {
  prepare_max_pool_2d(ctx);
  switch (ctx.input(0).type()) {
    case DataType::kInt8: return cmsis_max_pool<int8_t>(ctx, "arm_max_pool_s8");
    case DataType::kInt16: return cmsis_max_pool<int16_t>(ctx, "arm_max_pool_s16");
    default: return std::nullopt;
  }
}

}  // namespace dmo

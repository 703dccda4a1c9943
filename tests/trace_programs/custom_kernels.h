// Two kernels dmo did not derive from TFLite's loop order, each one loop
// nest written once over dmo's memory policies: the traced program
// (custom_kernels_main.cc) runs them with DirectMemory between dmo_trace.h
// markers, and tests/trace_test.cc runs the same code with AddressMemory and
// CheckingMemory.
//  - A float convolution that walks output channels outermost:
//    for oc { for oy, ox { for fy, fx, ic } } (VALID padding, stride 1).
//  - A float matrix multiply C = A x B with loops i, j, k.
#pragma once

#include <cstdint>
#include <vector>

#include "dmo/model/tensor.h"
#include "dmo/ops/tensor_ref.h"

namespace dmo::trace_programs {

struct ConvShape {
  int32_t height = 6, width = 6, in_channels = 3, out_channels = 4, kernel_h = 3, kernel_w = 3;
  int32_t out_height() const { return height - kernel_h + 1; }
  int32_t out_width() const { return width - kernel_w + 1; }
};

struct MatmulShape {
  int32_t m = 5, k = 7, n = 6;
};

inline constexpr ConvShape kConvShape{};
inline constexpr MatmulShape kMatmulShape{};

// Tensor indices the policies see.
inline constexpr int32_t kInput = 0, kWeights = 1, kOutput = 2;

inline Tensor float_tensor(const Shape& shape) {
  Tensor t;
  t.type = DataType::kFloat32;
  t.shape = shape;
  t.element_count = 1;
  for (int32_t d : shape) t.element_count *= d;
  t.byte_size = t.element_count * 4;
  return t;
}

inline TensorRef ref_to(const Tensor& t, uint8_t* data, int32_t index, bool is_output, bool in_arena) {
  TensorRef r;
  r.tensor = &t;
  r.data = data;
  r.index = index;
  r.is_output = is_output;
  r.in_arena = in_arena;
  return r;
}

// Input NHWC (batch 1), filter OHWI, output NHWC.
template <class Memory>
void conv_output_channels_outermost(const ConvShape& s, const TensorRef& input, const TensorRef& filter,
                                    const TensorRef& output, Memory& mem) {
  for (int32_t oc = 0; oc < s.out_channels; ++oc) {
    for (int32_t oy = 0; oy < s.out_height(); ++oy) {
      for (int32_t ox = 0; ox < s.out_width(); ++ox) {
        float total = 0.0f;
        for (int32_t fy = 0; fy < s.kernel_h; ++fy) {
          for (int32_t fx = 0; fx < s.kernel_w; ++fx) {
            for (int32_t ic = 0; ic < s.in_channels; ++ic) {
              int64_t in = (static_cast<int64_t>(oy + fy) * s.width + (ox + fx)) * s.in_channels + ic;
              int64_t w = ((static_cast<int64_t>(oc) * s.kernel_h + fy) * s.kernel_w + fx) * s.in_channels + ic;
              total += mem.template load<float>(input, in) * mem.template load<float>(filter, w);
            }
          }
        }
        int64_t out = (static_cast<int64_t>(oy) * s.out_width() + ox) * s.out_channels + oc;
        mem.template store<float>(output, out, total);
      }
    }
  }
}

// A is m x k, B is k x n, C is m x n, all row-major.
template <class Memory>
void matmul_ijk(const MatmulShape& s, const TensorRef& a, const TensorRef& b, const TensorRef& c, Memory& mem) {
  for (int32_t i = 0; i < s.m; ++i) {
    for (int32_t j = 0; j < s.n; ++j) {
      float total = 0.0f;
      for (int32_t k = 0; k < s.k; ++k) {
        total += mem.template load<float>(a, static_cast<int64_t>(i) * s.k + k) *
                 mem.template load<float>(b, static_cast<int64_t>(k) * s.n + j);
      }
      mem.template store<float>(c, static_cast<int64_t>(i) * s.n + j, total);
    }
  }
}

inline Shape conv_input_shape(const ConvShape& s) { return {1, s.height, s.width, s.in_channels}; }
inline Shape conv_filter_shape(const ConvShape& s) { return {s.out_channels, s.kernel_h, s.kernel_w, s.in_channels}; }
inline Shape conv_output_shape(const ConvShape& s) { return {1, s.out_height(), s.out_width(), s.out_channels}; }

// Deterministic small values.
inline std::vector<float> ramp(int64_t n, float scale) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = scale * static_cast<float>((i * 7) % 11 - 5);
  return v;
}

}  // namespace dmo::trace_programs

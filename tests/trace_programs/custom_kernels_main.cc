// A traced test program: runs the kernels of custom_kernels.h with
// DirectMemory between dmo_trace.h markers (`dmo trace -- this-program`).
//   dmo_trace_custom_kernels [conv] [matmul] [nested] [unterminated] [fail]
// conv: layer "custom conv oc-outer"; matmul: layers "custom matmul A" and
// "custom matmul B" (the same multiply, traced for each input); nested,
// unterminated and fail misuse the markers or exit with status 3, for the
// error tests. No argument: conv and matmul.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "custom_kernels.h"
#include "dmo/ops/memory_policy.h"
#include "dmo_trace.h"

namespace {

using namespace dmo;
using namespace dmo::trace_programs;

uint8_t* bytes(std::vector<float>& v) { return reinterpret_cast<uint8_t*>(v.data()); }

// Not inlined into the callers: there GCC sees that the buffers come from
// separate allocations and the shapes are constants, so it may keep a row of
// A in registers across j instead of reloading it after every store (the
// trace then shows a larger O_s than the loop nest as written has).
[[gnu::noinline]] void conv_direct(const ConvShape& s, const TensorRef& input, const TensorRef& filter,
                                   const TensorRef& output) {
  DirectMemory mem;
  conv_output_channels_outermost(s, input, filter, output, mem);
}

[[gnu::noinline]] void matmul_direct(const MatmulShape& s, const TensorRef& a, const TensorRef& b, const TensorRef& c) {
  DirectMemory mem;
  matmul_ijk(s, a, b, c, mem);
}

void run_conv() {
  const ConvShape s = kConvShape;
  Tensor ti = float_tensor(conv_input_shape(s)), tf = float_tensor(conv_filter_shape(s)),
         to = float_tensor(conv_output_shape(s));
  std::vector<float> input = ramp(ti.element_count, 0.5f), filter = ramp(tf.element_count, 0.25f);
  std::vector<float> output(static_cast<size_t>(to.element_count));
  DMO_TRACE_LAYER_BEGIN("custom conv oc-outer", input.data(), ti.byte_size, output.data(), to.byte_size);
  conv_direct(s, ref_to(ti, bytes(input), kInput, false, true), ref_to(tf, bytes(filter), kWeights, false, false),
              ref_to(to, bytes(output), kOutput, true, true));
  DMO_TRACE_LAYER_END("custom conv oc-outer");
  std::printf("conv output[last] = %g\n", static_cast<double>(output.back()));
}

void run_matmul() {
  const MatmulShape s = kMatmulShape;
  Tensor ta = float_tensor({s.m, s.k}), tb = float_tensor({s.k, s.n}), tc = float_tensor({s.m, s.n});
  std::vector<float> a = ramp(ta.element_count, 0.5f), b = ramp(tb.element_count, 0.25f);
  std::vector<float> c(static_cast<size_t>(tc.element_count));
  const TensorRef ra = ref_to(ta, bytes(a), kInput, false, true), rb = ref_to(tb, bytes(b), kWeights, false, true),
                  rc = ref_to(tc, bytes(c), kOutput, true, true);
  DMO_TRACE_LAYER_BEGIN("custom matmul A", a.data(), ta.byte_size, c.data(), tc.byte_size);
  matmul_direct(s, ra, rb, rc);
  DMO_TRACE_LAYER_END("custom matmul A");
  DMO_TRACE_LAYER_BEGIN("custom matmul B", b.data(), tb.byte_size, c.data(), tc.byte_size);
  matmul_direct(s, ra, rb, rc);
  DMO_TRACE_LAYER_END("custom matmul B");
  std::printf("matmul C[last] = %g\n", static_cast<double>(c.back()));
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> what(argv + 1, argv + argc);
  if (what.empty()) what = {"conv", "matmul"};
  for (const std::string& w : what) {
    if (w == "conv") {
      run_conv();
    } else if (w == "matmul") {
      run_matmul();
    } else if (w == "nested") {
      static float in[4], out[4];
      DMO_TRACE_LAYER_BEGIN("outer layer", in, sizeof in, out, sizeof out);
      DMO_TRACE_LAYER_BEGIN("inner layer", in, sizeof in, out, sizeof out);
      DMO_TRACE_LAYER_END("inner layer");
      DMO_TRACE_LAYER_END("outer layer");
    } else if (w == "unterminated") {
      static float in[4], out[4];
      DMO_TRACE_LAYER_BEGIN("open layer", in, sizeof in, out, sizeof out);
    } else if (w == "fail") {
      return 3;
    } else {
      std::fprintf(stderr, "unknown argument '%s'\n", w.c_str());
      return 2;
    }
  }
  return 0;
}

// SVDF (singular value decomposition filter), mirroring TFLM's
// EvalFloatSvdfReference (float) and EvalIntegerSvdfReference (int8 input
// with int8 or int16 state) in svdf_common.cc. Inputs: input [batch, input_size],
// weights_feature [filters, input_size], weights_time [filters, memory],
// bias [units] (optional), activation state [batch, filters * memory], a
// variable tensor the op reads and rewrites; output [batch, units] with
// units = filters / rank. Per inference:
//  1. the state shifts left by one element (the oldest time step drops out),
//  2. each filter's feature dot product goes into the newest time step,
//  3. each filter's state row is dotted with its time weights,
//  4. units sum their `rank` filters onto the bias; float applies the fused
//     activation, int8 requantizes to the output (TFLite Micro applies no
//     activation there).
// Step 4 walks the output as TFLM does. Float (ApplyTimeWeightsBiasAndActivation)
// writes it three times: the bias (or 0) into every element, then each
// filter sum added in place, then the activation in place. Int8 sums into
// its scratch_output_tensor_index buffer (bias or 0 first, then the filter
// sums) and stores each output element once, requantized. Every input read
// (step 2) comes before the first output write, so the output may overlap
// the whole input either way.
// Int8 SVDF keeps its state and time weights in one type: int8 or int16;
// its nest is ops/eval/svdf_loops.h, which generated code runs too.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <variant>
#include <vector>

#include "../instance_kernel.h"
#include "dmo/model/data_type.h"
#include "dmo/ops/eval/svdf_loops.h"
#include "dmo/ops/fixed_point.h"
#include "dmo/ops/kernels.h"

namespace dmo {

namespace {

constexpr size_t kInput = 0, kWeightsFeature = 1, kWeightsTime = 2, kBias = 3, kState = 4;

// TFLite Micro's ActivationValFloat.
float activate(Activation activation, float x) {
  switch (activation) {
    case Activation::kNone: return x;
    case Activation::kRelu: return std::max(0.0f, x);
    case Activation::kReluN1To1: return std::max(-1.0f, std::min(x, 1.0f));
    case Activation::kRelu6: return std::max(0.0f, std::min(x, 6.0f));
    case Activation::kTanh: return std::tanh(x);
    case Activation::kSignBit: return std::signbit(x) ? 1.0f : 0.0f;
  }
  return 0.0f;
}

// The prepared float SVDF.
struct FloatSvdfKernel {
  SvdfSizes s;
  Activation activation = Activation::kNone;
  // Each filter's time dot product (TFLM's scratch_tensor_index buffer).
  mutable std::vector<float> filter_sums;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    const TensorRef& input = io.input(kInput);
    const TensorRef& weights_feature = io.input(kWeightsFeature);
    const TensorRef& weights_time = io.input(kWeightsTime);
    const TensorRef& state = io.input(kState);
    const TensorRef& output = io.output(0);

    shift_svdf_state_left<float>(s, state, mem);
    for (int64_t b = 0; b < s.batch; ++b) {
      for (int64_t f = 0; f < s.filters; ++f) {
        float dot = 0.0f;
        for (int64_t c = 0; c < s.input_size; ++c) {
          dot += mem.template load<float>(weights_feature, f * s.input_size + c) *
                 mem.template load<float>(input, b * s.input_size + c);
        }
        mem.template store<float>(state, s.state_index(b, f, s.memory - 1), dot);
      }
    }
    for (int64_t b = 0; b < s.batch; ++b) {
      for (int64_t f = 0; f < s.filters; ++f) {
        float sum = 0.0f;
        for (int64_t t = 0; t < s.memory; ++t) {
          sum += mem.template load<float>(weights_time, f * s.memory + t) *
                 mem.template load<float>(state, s.state_index(b, f, t));
        }
        filter_sums[static_cast<size_t>(b * s.filters + f)] = sum;
      }
    }
    const bool has_bias = io.has_input(kBias);
    for (int64_t b = 0; b < s.batch; ++b) {
      for (int64_t u = 0; u < s.units; ++u) {
        const float bias = has_bias ? mem.template load<float>(io.input(kBias), u) : 0.0f;
        mem.template store<float>(output, b * s.units + u, bias);
      }
    }
    for (int64_t b = 0; b < s.batch; ++b) {
      for (int64_t u = 0; u < s.units; ++u) {
        for (int64_t r = 0; r < s.rank; ++r) {
          const int64_t o = b * s.units + u;
          mem.template store<float>(output, o, mem.template load<float>(output, o) +
                                                   filter_sums[static_cast<size_t>(b * s.filters + u * s.rank + r)]);
        }
      }
    }
    for (int64_t o = 0; o < s.batch * s.units; ++o) {
      mem.template store<float>(output, o, activate(activation, mem.template load<float>(output, o)));
    }
  }
};

int32_t zero_point_of(const Tensor& t) {
  return t.quantization.zero_point.empty() ? 0 : static_cast<int32_t>(t.quantization.zero_point[0]);
}

// The prepared integer SVDF (ops/eval/svdf_loops.h: state and time
// weights of type T, int8 or int16) with the sums its scratch words point
// to (TFLM's two scratch buffers), shared by copies of the kernel.
template <typename T>
struct IntegerSvdfKernel {
  std::shared_ptr<int32_t[]> filter_sums, unit_sums;
  IntegerSvdfLoops<T> loops;

  template <class Memory>
  void eval(const KernelIO& io, Memory& mem) const {
    loops.eval(io, mem);
  }
};

bool per_tensor_scale(const Tensor& t) { return t.quantization.scale.size() == 1; }

// The integer kernel's requantization, formed after every check passed.
template <typename T>
PreparedKernel prepare_integer_svdf(const OpContext& ctx, const SvdfSizes& s) {
  const TensorRef& input = ctx.input(kInput);
  const TensorRef& weights_feature = ctx.input(kWeightsFeature);
  const TensorRef& weights_time = ctx.input(kWeightsTime);
  const TensorRef& state = ctx.input(kState);
  const TensorRef& output = ctx.output(0);
  const float input_scale = input.tensor->quantization.scale[0];
  const float feature_scale = weights_feature.tensor->quantization.scale[0];
  const float time_scale = weights_time.tensor->quantization.scale[0];
  const float state_scale = state.tensor->quantization.scale[0];
  const float output_scale = output.tensor->quantization.scale[0];
  IntegerSvdfKernel<T> k;
  IntegerSvdfLoops<T>& l = k.loops;
  l.sizes = s;
  // TFLite Micro forms both scales in float, then widens them.
  l.to_state = quantize_multiplier(static_cast<double>(input_scale * feature_scale / state_scale));
  l.to_output = quantize_multiplier(static_cast<double>(state_scale * time_scale / output_scale));
  l.input_zero_point = zero_point_of(*input.tensor);
  l.state_zero_point = zero_point_of(*state.tensor);
  l.output_zero_point = zero_point_of(*output.tensor);
  k.filter_sums = std::make_shared<int32_t[]>(static_cast<size_t>(std::max<int64_t>(s.batch * s.filters, 1)));
  k.unit_sums = std::make_shared<int32_t[]>(static_cast<size_t>(std::max<int64_t>(s.batch * s.units, 1)));
  l.filter_sums = ScratchWords{k.filter_sums.get(), s.batch * s.filters};
  l.unit_sums = ScratchWords{k.unit_sums.get(), s.batch * s.units};
  const DeviceInstance instance = device_instance(fmt::format("IntegerSvdfLoops<{}>", device_type_name<T>()), l);
  return instance_kernel_run_by(std::move(k), instance, DataType::kInt8);
}

}  // namespace

PreparedKernel prepare_svdf(const OpContext& ctx) {
  ctx.require(ctx.inputs.size() == 5,
              fmt::format("expected 5 inputs (input, weights_feature, weights_time, bias, state), got {}",
                          ctx.inputs.size()));
  ctx.require(ctx.outputs.size() == 1, fmt::format("expected 1 output, got {}", ctx.outputs.size()));
  for (size_t i : {kInput, kWeightsFeature, kWeightsTime, kState}) {
    ctx.require(ctx.has_input(i), fmt::format("input {} is missing", i));
  }
  const auto* params = std::get_if<SvdfParams>(&ctx.op->params);
  ctx.require(params != nullptr, "SVDFOptions are missing");
  const TensorRef& input = ctx.input(kInput);
  const TensorRef& weights_feature = ctx.input(kWeightsFeature);
  const TensorRef& weights_time = ctx.input(kWeightsTime);
  const TensorRef& state = ctx.input(kState);
  const TensorRef& output = ctx.output(0);
  const bool has_bias = ctx.has_input(kBias);

  ctx.require(input.rank() == 2 && weights_feature.rank() == 2 && weights_time.rank() == 2 && state.rank() == 2 &&
                  output.rank() == 2,
              "input, weights, state and output must be 2-D");
  SvdfSizes s;
  s.batch = input.dim(0);
  s.input_size = input.dim(1);
  s.filters = weights_feature.dim(0);
  s.memory = weights_time.dim(1);
  s.rank = params->rank;
  ctx.require(s.rank >= 1 && s.filters % s.rank == 0,
              fmt::format("{} filters do not divide into rank {}", s.filters, s.rank));
  s.units = s.filters / s.rank;
  ctx.require(weights_feature.dim(1) == s.input_size,
              fmt::format("weights_feature {} does not match input size {}",
                          shape_to_string(weights_feature.shape()), s.input_size));
  ctx.require(weights_time.dim(0) == s.filters,
              fmt::format("weights_time {} does not have {} filters", shape_to_string(weights_time.shape()),
                          s.filters));
  ctx.require(s.memory >= 1, "weights_time has no time steps");
  ctx.require(state.dim(0) == s.batch && state.dim(1) == s.memory * s.filters,
              fmt::format("state {} is not {}x{}", shape_to_string(state.shape()), s.batch, s.memory * s.filters));
  ctx.require(state.tensor->is_variable, "the activation state (input 4) must be a variable tensor");
  ctx.require(output.dim(0) == s.batch && output.dim(1) == s.units,
              fmt::format("output {} is not {}x{}", shape_to_string(output.shape()), s.batch, s.units));
  if (has_bias) {
    ctx.require(ctx.input(kBias).elements() == s.units,
                fmt::format("bias has {} elements, expected {}", ctx.input(kBias).elements(), s.units));
  }

  if (input.type() == DataType::kFloat32) {
    for (size_t i : {kWeightsFeature, kWeightsTime, kState}) {
      ctx.require(ctx.input(i).type() == DataType::kFloat32,
                  fmt::format("float SVDF: input {} has type {}, expected FLOAT32", i,
                              data_type_name(ctx.input(i).type())));
    }
    ctx.require(!has_bias || ctx.input(kBias).type() == DataType::kFloat32, "float SVDF: bias must be FLOAT32");
    ctx.require(output.type() == DataType::kFloat32, "float SVDF: output must be FLOAT32");
    FloatSvdfKernel k;
    k.s = s;
    k.activation = params->activation;
    k.filter_sums.resize(static_cast<size_t>(s.batch * s.filters));
    return PreparedKernel::of(std::move(k));
  }
  ctx.require(input.type() == DataType::kInt8,
              fmt::format("input type {} is not supported; supported: FLOAT32, INT8", data_type_name(input.type())));
  ctx.require(weights_feature.type() == DataType::kInt8, "int8 SVDF: weights_feature must be INT8");
  const DataType memory_type = weights_time.type();
  ctx.require(memory_type == DataType::kInt8 || memory_type == DataType::kInt16,
              fmt::format("int8 SVDF: weights_time type {} is not supported; supported: INT8, INT16",
                          data_type_name(memory_type)));
  ctx.require(state.type() == memory_type,
              fmt::format("int8 SVDF: state type {} differs from weights_time type {}", data_type_name(state.type()),
                          data_type_name(memory_type)));
  ctx.require(output.type() == DataType::kInt8, "int8 SVDF: output must be INT8");
  for (const TensorRef* t : {&input, &weights_feature, &weights_time, &state, &output}) {
    ctx.require(per_tensor_scale(*t->tensor) && t->tensor->quantization.scale[0] > 0,
                fmt::format("int8 SVDF: tensor {} needs per-tensor quantization with a positive scale", t->index));
  }
  if (has_bias) {
    const Tensor& bias = *ctx.input(kBias).tensor;
    ctx.require(bias.type == DataType::kInt32, "int8 SVDF: bias must be INT32");
    // TFLite Micro's check: the bias scale is state scale times time scale.
    const double expected = static_cast<double>(state.tensor->quantization.scale[0] *
                                                weights_time.tensor->quantization.scale[0]);
    ctx.require(per_tensor_scale(bias) && std::abs(static_cast<double>(bias.quantization.scale[0]) - expected) < 1e-5,
                "int8 SVDF: bias scale must be state scale times weights_time scale");
  }
  if (memory_type == DataType::kInt16) return prepare_integer_svdf<int16_t>(ctx, s);
  return prepare_integer_svdf<int8_t>(ctx, s);
}

}  // namespace dmo

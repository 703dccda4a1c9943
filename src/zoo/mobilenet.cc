#include "dmo/zoo/mobilenet.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <string_view>
#include <vector>

#include "dmo/error.h"
#include "dmo/zoo/graph_builder.h"
#include "xorshift32.h"

namespace dmo {
namespace {

constexpr int32_t kClassCount = 1001;  // ImageNet classes plus "background"
constexpr float kBiasLimit = 0.05f;    // real-valued biases stay small

// FNV-1a of a tensor name: seeds its values, so the same name gives the same
// values on every platform and in every build.
uint32_t fnv1a(std::string_view text) {
  uint32_t hash = 2166136261u;
  for (char c : text) {
    hash ^= static_cast<uint8_t>(c);
    hash *= 16777619u;
  }
  return hash;
}

// What an activation holds, which fixes its quantization: the ranges a
// converter would calibrate for these layers.
enum class ValueRange { kModelInput, kRelu6, kLinear, kLogits, kProbabilities };

struct Int8Affine {
  float scale;
  int64_t zero_point;
};

Int8Affine int8_affine(ValueRange range) {
  switch (range) {
    case ValueRange::kModelInput: return {1.0f / 128.0f, 0};     // [-1, 1)
    case ValueRange::kRelu6: return {6.0f / 255.0f, -128};       // [0, 6]
    case ValueRange::kLinear: return {0.05f, 0};                 // about +-6.4
    case ValueRange::kLogits: return {0.1f, 0};                  // about +-12.8
    case ValueRange::kProbabilities: return {1.0f / 256.0f, -128};  // [0, 1)
  }
  return {1.0f, 0};
}

// The uint8 scheme is the int8 one shifted by 128.
constexpr int64_t kUInt8Offset = 128;

int32_t same_padding_output(int32_t size, int32_t stride) { return (size + stride - 1) / stride; }

// Adds layers to a GraphBuilder, creating weights, biases and activations
// with the element type and quantization scheme of the model.
class LayerBuilder {
 public:
  LayerBuilder(std::string source, DataType type) : builder_(std::move(source)), type_(type) {}

  int32_t input(int32_t resolution) {
    return add_activation("input", {1, resolution, resolution, 3}, ValueRange::kModelInput);
  }

  int32_t conv(const std::string& name, int32_t input, int32_t out_channels, int32_t kernel, int32_t stride,
               Activation activation, ValueRange output_range) {
    const Shape in = shape(input);  // a copy: adding tensors moves them
    const Weights weights = add_weights(name + "/weights", {out_channels, kernel, kernel, in[3]},
                                        kernel * kernel * in[3], /*quantized_dimension=*/0);
    const int32_t bias = add_bias(name + "/bias", out_channels, input, weights.scales);
    const int32_t output = add_activation(
        name, {1, same_padding_output(in[1], stride), same_padding_output(in[2], stride), out_channels},
        output_range);
    Conv2DParams params;
    params.padding = Padding::kSame;
    params.stride_w = params.stride_h = stride;
    params.activation = activation;
    builder_.add_op(OpKind::kConv2D, {input, weights.tensor, bias}, {output}, params);
    return output;
  }

  // MobileNets only use 3x3 depthwise convs with multiplier 1 and RELU6.
  int32_t depthwise(const std::string& name, int32_t input, int32_t stride) {
    constexpr int32_t kKernel = 3;
    const Shape in = shape(input);  // a copy: adding tensors moves them
    const int32_t channels = in[3];
    const Weights weights =
        add_weights(name + "/weights", {1, kKernel, kKernel, channels}, kKernel * kKernel, /*quantized_dimension=*/3);
    const int32_t bias = add_bias(name + "/bias", channels, input, weights.scales);
    const int32_t output = add_activation(
        name, {1, same_padding_output(in[1], stride), same_padding_output(in[2], stride), channels},
        ValueRange::kRelu6);
    DepthwiseConv2DParams params;
    params.padding = Padding::kSame;
    params.stride_w = params.stride_h = stride;
    params.depth_multiplier = 1;
    params.activation = Activation::kRelu6;
    builder_.add_op(OpKind::kDepthwiseConv2D, {input, weights.tensor, bias}, {output}, params);
    return output;
  }

  int32_t add(const std::string& name, int32_t lhs, int32_t rhs) {
    const int32_t output = add_activation(name, shape(lhs), ValueRange::kLinear);
    builder_.add_op(OpKind::kAdd, {lhs, rhs}, {output}, ElementwiseParams{});
    return output;
  }

  // Averages the whole feature map to 1x1, as the hosted models do: a VALID
  // pool whose filter is the map, stride 2.
  int32_t global_average_pool(const std::string& name, int32_t input) {
    const Shape in = shape(input);  // a copy: adding tensors moves them
    // Averaging keeps the input's range, so TFLite requires its quantization.
    const int32_t output =
        builder_.add_tensor(name, type_, {1, 1, 1, in[3]}, builder_.tensor(input).quantization);
    Pool2DParams params;
    params.padding = Padding::kValid;
    params.stride_w = params.stride_h = 2;
    params.filter_h = in[1];
    params.filter_w = in[2];
    builder_.add_op(OpKind::kAveragePool2D, {input}, {output}, params);
    return output;
  }

  // 1x1 conv to the classes, flattened to [1, classes], then softmax.
  int32_t classifier(int32_t features) {
    const int32_t logits = conv("logits", features, kClassCount, 1, 1, Activation::kNone, ValueRange::kLogits);
    const std::vector<int32_t> flat_shape = {1, kClassCount};
    // Converters emit the shape both as options and as a constant input.
    const int32_t shape_tensor =
        builder_.add_constant_values<int32_t>("reshape/shape", DataType::kInt32, {2}, flat_shape);
    const int32_t flat = builder_.add_tensor("reshape", type_, flat_shape, builder_.tensor(logits).quantization);
    ReshapeParams reshape;
    reshape.new_shape = flat_shape;
    reshape.has_new_shape = true;
    builder_.add_op(OpKind::kReshape, {logits, shape_tensor}, {flat}, reshape);
    const int32_t probabilities = add_activation("softmax", flat_shape, ValueRange::kProbabilities);
    SoftmaxParams softmax;
    softmax.beta = 1.0f;
    builder_.add_op(OpKind::kSoftmax, {flat}, {probabilities}, softmax);
    return probabilities;
  }

  int32_t channels(int32_t tensor) const { return shape(tensor)[3]; }

  Graph finish(int32_t input, int32_t output) {
    builder_.set_inputs({input});
    builder_.set_outputs({output});
    return builder_.finish();
  }

 private:
  struct Weights {
    int32_t tensor = 0;
    std::vector<float> scales;  // empty for float32
  };

  const Shape& shape(int32_t tensor) const { return builder_.tensor(tensor).shape; }

  int32_t add_activation(const std::string& name, const Shape& shape, ValueRange range) {
    return builder_.add_tensor(name, type_, shape, activation_quantization(range));
  }

  Quantization activation_quantization(ValueRange range) const {
    if (type_ == DataType::kFloat32) return {};
    const Int8Affine affine = int8_affine(range);
    const int64_t zero_point = affine.zero_point + (type_ == DataType::kUInt8 ? kUInt8Offset : 0);
    return Quantization{{affine.scale}, {zero_point}, 0};
  }

  // Uniform weights with variance 1/fan_in (limit sqrt(3/fan_in)), so
  // activations keep their magnitude from layer to layer. Quantized filters
  // map that limit to 127: per output channel for int8, per tensor for uint8.
  Weights add_weights(const std::string& name, const Shape& shape, int32_t fan_in, int32_t quantized_dimension) {
    Xorshift32 random(fnv1a(name));
    const float limit = std::sqrt(3.0f / static_cast<float>(fan_in));
    size_t count = 1;
    for (int32_t dim : shape) count *= static_cast<size_t>(dim);

    if (type_ == DataType::kFloat32) {
      std::vector<float> values(count);
      for (float& v : values) v = random.uniform(limit);
      return {builder_.add_constant_values(name, type_, shape, values), {}};
    }

    const float scale = limit / 127.0f;
    if (type_ == DataType::kInt8) {
      const auto channels = static_cast<size_t>(shape[static_cast<size_t>(quantized_dimension)]);
      std::vector<int8_t> values(count);
      for (int8_t& v : values) v = static_cast<int8_t>(random.integer(-127, 127));
      Quantization quant{std::vector<float>(channels, scale), std::vector<int64_t>(channels, 0), quantized_dimension};
      Weights weights{0, quant.scale};
      weights.tensor = builder_.add_constant_values(name, type_, shape, values, std::move(quant));
      return weights;
    }

    std::vector<uint8_t> values(count);
    for (uint8_t& v : values) v = static_cast<uint8_t>(kUInt8Offset + random.integer(-127, 127));
    Quantization quant{{scale}, {kUInt8Offset}, 0};
    return {builder_.add_constant_values(name, type_, shape, values, std::move(quant)), {scale}};
  }

  // Quantized biases are INT32 with scale input_scale * weight_scale (per
  // channel when the weights are), as the integer kernels require.
  int32_t add_bias(const std::string& name, int32_t channels, int32_t input, const std::vector<float>& weight_scales) {
    Xorshift32 random(fnv1a(name));
    const auto count = static_cast<size_t>(channels);
    if (type_ == DataType::kFloat32) {
      std::vector<float> values(count);
      for (float& v : values) v = random.uniform(kBiasLimit);
      return builder_.add_constant_values(name, DataType::kFloat32, {channels}, values);
    }

    const float input_scale = builder_.tensor(input).quantization.scale.at(0);
    std::vector<float> scales;
    for (float weight_scale : weight_scales) scales.push_back(input_scale * weight_scale);
    std::vector<int32_t> values(count);
    for (size_t c = 0; c < count; ++c) {
      const float scale = scales[scales.size() == 1 ? 0 : c];
      values[c] = static_cast<int32_t>(std::lround(random.uniform(kBiasLimit) / scale));
    }
    std::vector<int64_t> zero_points(scales.size(), 0);
    return builder_.add_constant_values(name, DataType::kInt32, {channels}, values,
                                        Quantization{std::move(scales), std::move(zero_points), 0});
  }

  GraphBuilder builder_;
  DataType type_;
};

// ---- MobileNet v1 (TF-slim) ----

struct SeparableBlock {
  int32_t filters;
  int32_t stride;
};

constexpr SeparableBlock kV1Blocks[] = {
    {64, 1},  {128, 2}, {128, 1}, {256, 2}, {256, 1}, {512, 2},  {512, 1},
    {512, 1}, {512, 1}, {512, 1}, {512, 1}, {1024, 2}, {1024, 1},
};

int32_t v1_channels(int32_t base, double alpha) { return std::max(1, static_cast<int32_t>(base * alpha)); }

int32_t add_v1_layers(LayerBuilder& layers, int32_t input, double alpha) {
  int32_t x = layers.conv("conv0", input, v1_channels(32, alpha), 3, 2, Activation::kRelu6, ValueRange::kRelu6);
  int block_number = 1;
  for (const SeparableBlock& block : kV1Blocks) {
    const std::string name = fmt::format("block{}", block_number++);
    x = layers.depthwise(name + "/depthwise", x, block.stride);
    x = layers.conv(name + "/pointwise", x, v1_channels(block.filters, alpha), 1, 1, Activation::kRelu6,
                    ValueRange::kRelu6);
  }
  x = layers.global_average_pool("avgpool", x);
  return layers.classifier(x);
}

// ---- MobileNet v2 (Keras) ----

struct InvertedResidualGroup {
  int32_t expansion;
  int32_t channels;
  int32_t repeats;
  int32_t stride;  // of the group's first block; the others use 1
};

constexpr InvertedResidualGroup kV2Groups[] = {
    {1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2}, {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1},
};

// Channel counts rounded to multiples of 8, never more than 10% below the value.
int32_t make_divisible(double value) {
  int32_t rounded = std::max(8, static_cast<int32_t>(value + 4) / 8 * 8);
  if (rounded < 0.9 * value) rounded += 8;
  return rounded;
}

int32_t add_inverted_residual(LayerBuilder& layers, const std::string& name, int32_t input, int32_t expansion,
                              int32_t out_channels, int32_t stride) {
  const int32_t in_channels = layers.channels(input);
  int32_t x = input;
  if (expansion != 1) {
    x = layers.conv(name + "/expand", x, in_channels * expansion, 1, 1, Activation::kRelu6, ValueRange::kRelu6);
  }
  x = layers.depthwise(name + "/depthwise", x, stride);
  x = layers.conv(name + "/project", x, out_channels, 1, 1, Activation::kNone, ValueRange::kLinear);
  if (stride == 1 && in_channels == out_channels) x = layers.add(name + "/add", input, x);
  return x;
}

int32_t add_v2_layers(LayerBuilder& layers, int32_t input, double alpha) {
  int32_t x = layers.conv("conv0", input, make_divisible(32 * alpha), 3, 2, Activation::kRelu6, ValueRange::kRelu6);
  int block_number = 1;
  for (const InvertedResidualGroup& group : kV2Groups) {
    const int32_t out_channels = make_divisible(group.channels * alpha);
    for (int32_t i = 0; i < group.repeats; ++i) {
      x = add_inverted_residual(layers, fmt::format("block{}", block_number++), x, group.expansion, out_channels,
                                i == 0 ? group.stride : 1);
    }
  }
  // Keras only widens the last conv for alpha > 1.
  const int32_t head_channels = alpha > 1.0 ? make_divisible(1280 * alpha) : 1280;
  x = layers.conv("head", x, head_channels, 1, 1, Activation::kRelu6, ValueRange::kRelu6);
  x = layers.global_average_pool("avgpool", x);
  return layers.classifier(x);
}

void check_config(const MobileNetConfig& config) {
  if (config.version != 1 && config.version != 2) {
    throw Error(fmt::format("MobileNet version must be 1 or 2, got {}", config.version));
  }
  // Written so that NaN fails too.
  if (!(config.alpha > 0.0 && config.alpha <= 4.0)) {
    throw Error(fmt::format("MobileNet alpha must be in (0, 4], got {}", config.alpha));
  }
  if (config.resolution < 32 || config.resolution > 1024) {
    throw Error(fmt::format("MobileNet resolution must be in [32, 1024], got {}", config.resolution));
  }
  if (config.type != DataType::kFloat32 && config.type != DataType::kInt8 && config.type != DataType::kUInt8) {
    throw Error(fmt::format("MobileNet element type must be float32, int8 or uint8, got {}",
                            data_type_name(config.type)));
  }
}

}  // namespace

std::string mobilenet_name(const MobileNetConfig& config) {
  const std::string alpha =
      config.alpha == std::floor(config.alpha) ? fmt::format("{:.1f}", config.alpha) : fmt::format("{}", config.alpha);
  std::string type(data_type_name(config.type));
  std::transform(type.begin(), type.end(), type.begin(), [](unsigned char c) { return std::tolower(c); });
  return fmt::format("mobilenet_v{}_{}_{}_{}", config.version, alpha, config.resolution, type);
}

Graph build_mobilenet(const MobileNetConfig& config) {
  check_config(config);
  LayerBuilder layers(mobilenet_name(config), config.type);
  const int32_t input = layers.input(config.resolution);
  const int32_t output = config.version == 1 ? add_v1_layers(layers, input, config.alpha)
                                             : add_v2_layers(layers, input, config.alpha);
  return layers.finish(input, output);
}

}  // namespace dmo

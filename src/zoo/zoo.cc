#include "dmo/zoo/zoo.h"

#include <fmt/format.h>

#include <charconv>
#include <limits>
#include <optional>
#include <string_view>

#include "dmo/error.h"
#include "dmo/zoo/mobilenet.h"
#include "dmo/zoo/synthetic_rnn.h"

namespace dmo {
namespace {

constexpr std::string_view kMobileNetPrefix = "mobilenet_v";
constexpr std::string_view kSyntheticRnnPrefix = "synthetic_rnn_";
constexpr std::string_view kSeedPrefix = "_seed";

bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool all_digits(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (!is_digit(c)) return false;
  }
  return true;
}

// A whole number; values too large for int become INT_MAX so that the name
// still parses and the range check reports them.
std::optional<int> parse_whole_number(std::string_view text) {
  if (!all_digits(text)) return std::nullopt;
  int value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error == std::errc::result_out_of_range) return std::numeric_limits<int>::max();
  if (error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// Digits, optionally followed by a point and more digits ("1", "0.25").
std::optional<double> parse_decimal(std::string_view text) {
  const size_t point = text.find('.');
  if (!all_digits(text.substr(0, point))) return std::nullopt;
  if (point != std::string_view::npos && !all_digits(text.substr(point + 1))) return std::nullopt;
  double value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, std::chars_format::fixed);
  if (error == std::errc::result_out_of_range) return std::numeric_limits<double>::infinity();
  if (error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<DataType> parse_type(std::string_view text) {
  if (text == "float32") return DataType::kFloat32;
  if (text == "int8") return DataType::kInt8;
  if (text == "uint8") return DataType::kUInt8;
  return std::nullopt;
}

// mobilenet_v<version>_<alpha>_<resolution>_<type>; ranges are left to
// build_mobilenet so its messages explain them.
std::optional<MobileNetConfig> parse_zoo_name(std::string_view name) {
  if (!name.starts_with(kMobileNetPrefix)) return std::nullopt;
  name.remove_prefix(kMobileNetPrefix.size());

  std::string_view fields[4];
  for (size_t i = 0; i < 4; ++i) {
    const size_t underscore = name.find('_');
    const bool last = i == 3;
    if (last != (underscore == std::string_view::npos)) return std::nullopt;
    fields[i] = name.substr(0, underscore);
    if (!last) name.remove_prefix(underscore + 1);
  }

  const auto version = parse_whole_number(fields[0]);
  const auto alpha = parse_decimal(fields[1]);
  const auto resolution = parse_whole_number(fields[2]);
  const auto type = parse_type(fields[3]);
  if (!version || !alpha || !resolution || !type) return std::nullopt;
  return MobileNetConfig{*version, *alpha, *resolution, *type};
}

// synthetic_rnn_<ops>[_seed<n>]; the range is left to build_synthetic_rnn.
std::optional<SyntheticRnnConfig> parse_synthetic_rnn_name(std::string_view name) {
  if (!name.starts_with(kSyntheticRnnPrefix)) return std::nullopt;
  name.remove_prefix(kSyntheticRnnPrefix.size());
  SyntheticRnnConfig config;
  const size_t seed_at = name.find(kSeedPrefix);
  if (seed_at != std::string_view::npos) {
    const auto seed = parse_whole_number(name.substr(seed_at + kSeedPrefix.size()));
    if (!seed) return std::nullopt;
    config.seed = static_cast<uint32_t>(*seed);
    name = name.substr(0, seed_at);
  }
  const auto ops = parse_whole_number(name);
  if (!ops) return std::nullopt;
  config.op_count = *ops;
  return config;
}

}  // namespace

Graph build_zoo_model(const std::string& name) {
  if (const auto rnn = parse_synthetic_rnn_name(name)) {
    try {
      Graph graph = build_synthetic_rnn(*rnn);
      graph.source = name;
      return graph;
    } catch (const Error& error) {
      throw Error(fmt::format("zoo model '{}': {}", name, error.what()));
    }
  }
  const auto config = parse_zoo_name(name);
  if (!config) {
    throw Error(fmt::format("'{}' is not a zoo model: expected {} (for example {})", name, kZooNameForm,
                            kDefaultZooModel));
  }
  Graph graph;
  try {
    graph = build_mobilenet(*config);
  } catch (const Error& error) {
    throw Error(fmt::format("zoo model '{}': {}", name, error.what()));
  }
  graph.source = name;
  return graph;
}

bool is_zoo_model_name(const std::string& name) {
  return parse_zoo_name(name).has_value() || parse_synthetic_rnn_name(name).has_value();
}

std::vector<std::string> zoo_example_names() {
  return {kDefaultZooModel, "mobilenet_v1_1.0_224_float32", "mobilenet_v2_0.35_96_int8",
          "mobilenet_v2_1.0_224_uint8",
          "synthetic_rnn_2338"};
}

}  // namespace dmo

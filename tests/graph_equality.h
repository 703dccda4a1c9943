// Field-by-field comparison of two Graphs for the writer tests: names the
// first difference, or returns "" when the graphs are the same. Floats are
// compared by their bits. When a params struct gains a field, add it to
// params_fields below.
#pragma once

#include <fmt/format.h>

#include <bit>
#include <cstdint>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "dmo/model/graph.h"
#include "dmo/tflite/offline_plan.h"

namespace dmo::test {

struct GraphComparison {
  bool compare_source = false;
  bool compare_description = true;
  // The OfflineMemoryAllocation entry and graph.offline_plan are left out.
  bool compare_offline_plan = false;
};

namespace graph_equality_detail {

inline auto params_fields(const NoParams&) { return std::tuple<>(); }
inline auto params_fields(const Conv2DParams& p) {
  return std::make_tuple(p.padding, p.stride_w, p.stride_h, p.dilation_w, p.dilation_h, p.activation);
}
inline auto params_fields(const DepthwiseConv2DParams& p) {
  return std::make_tuple(p.padding, p.stride_w, p.stride_h, p.depth_multiplier, p.dilation_w, p.dilation_h,
                         p.activation);
}
inline auto params_fields(const Pool2DParams& p) {
  return std::make_tuple(p.padding, p.stride_w, p.stride_h, p.filter_w, p.filter_h, p.activation);
}
inline auto params_fields(const FullyConnectedParams& p) {
  return std::make_tuple(p.activation, p.weights_format, p.keep_num_dims, p.asymmetric_quantize_inputs);
}
inline auto params_fields(const SoftmaxParams& p) { return std::make_tuple(std::bit_cast<uint32_t>(p.beta)); }
inline auto params_fields(const ConcatenationParams& p) { return std::make_tuple(p.axis, p.activation); }
inline auto params_fields(const ElementwiseParams& p) { return std::make_tuple(p.activation); }
inline auto params_fields(const ReshapeParams& p) { return std::make_tuple(p.new_shape, p.has_new_shape); }
inline auto params_fields(const SqueezeParams& p) { return std::make_tuple(p.squeeze_dims); }
inline auto params_fields(const ReducerParams& p) { return std::make_tuple(p.keep_dims); }
inline auto params_fields(const StridedSliceParams& p) {
  return std::make_tuple(p.begin_mask, p.end_mask, p.ellipsis_mask, p.new_axis_mask, p.shrink_axis_mask, p.offset);
}
inline auto params_fields(const SplitParams& p) { return std::make_tuple(p.num_splits); }
inline auto params_fields(const SvdfParams& p) {
  return std::make_tuple(p.rank, p.activation, p.asymmetric_quantize_inputs);
}
inline auto params_fields(const GatherParams& p) { return std::make_tuple(p.axis, p.batch_dims); }
inline auto params_fields(const LeakyReluParams& p) { return std::make_tuple(std::bit_cast<uint32_t>(p.alpha)); }
inline auto params_fields(const UnidirectionalSequenceLstmParams& p) {
  return std::make_tuple(p.activation, std::bit_cast<uint32_t>(p.cell_clip), std::bit_cast<uint32_t>(p.proj_clip),
                         p.time_major, p.asymmetric_quantize_inputs, p.diagonal_recurrent_tensors);
}
inline auto params_fields(const WhileParams& p) { return std::make_tuple(p.cond_subgraph, p.body_subgraph); }
inline auto params_fields(const IfParams& p) { return std::make_tuple(p.then_subgraph, p.else_subgraph); }
inline auto params_fields(const CallOnceParams& p) { return std::make_tuple(p.init_subgraph); }
inline auto params_fields(const PackParams& p) { return std::make_tuple(p.values_count, p.axis); }
inline auto params_fields(const UnpackParams& p) { return std::make_tuple(p.num, p.axis); }
// Matrix and resampling ops.
inline auto params_fields(const BatchMatMulParams& p) {
  return std::make_tuple(p.adj_x, p.adj_y, p.asymmetric_quantize_inputs);
}
inline auto params_fields(const ResizeBilinearParams& p) { return std::make_tuple(p.align_corners, p.half_pixel_centers); }
inline auto params_fields(const ResizeNearestNeighborParams& p) {
  return std::make_tuple(p.align_corners, p.half_pixel_centers);
}
inline auto params_fields(const TransposeConvParams& p) {
  return std::make_tuple(p.padding, p.stride_w, p.stride_h, p.activation);
}
// Resource variables.
inline auto params_fields(const VarHandleParams& p) { return std::make_tuple(p.container, p.shared_name); }

inline bool same_params(const OpParams& a, const OpParams& b) {
  if (a.index() != b.index()) return false;
  return std::visit(
      [&](const auto& pa) {
        const auto& pb = std::get<std::decay_t<decltype(pa)>>(b);
        return params_fields(pa) == params_fields(pb);
      },
      a);
}

inline std::vector<uint32_t> float_bits(const std::vector<float>& values) {
  std::vector<uint32_t> bits;
  for (float v : values) bits.push_back(std::bit_cast<uint32_t>(v));
  return bits;
}

inline std::string tensor_difference(const Tensor& a, const Tensor& b) {
  if (a.name != b.name) return fmt::format("name '{}' vs '{}'", a.name, b.name);
  if (a.type != b.type) return fmt::format("type {} vs {}", static_cast<int>(a.type), static_cast<int>(b.type));
  if (a.shape != b.shape) return fmt::format("shape {} vs {}", shape_to_string(a.shape), shape_to_string(b.shape));
  if (float_bits(a.quantization.scale) != float_bits(b.quantization.scale)) return "quantization scales";
  if (a.quantization.zero_point != b.quantization.zero_point) return "quantization zero points";
  if (a.quantization.quantized_dimension != b.quantization.quantized_dimension) return "quantized dimension";
  if (a.is_constant != b.is_constant) return fmt::format("is_constant {} vs {}", a.is_constant, b.is_constant);
  if (a.is_variable != b.is_variable) return fmt::format("is_variable {} vs {}", a.is_variable, b.is_variable);
  if (a.buffer_index != b.buffer_index) return fmt::format("buffer {} vs {}", a.buffer_index, b.buffer_index);
  if (a.data != b.data) return fmt::format("constant data ({} vs {} bytes)", a.data.size(), b.data.size());
  if (a.element_count != b.element_count) return "element count";
  if (a.byte_size != b.byte_size) return fmt::format("byte size {} vs {}", a.byte_size, b.byte_size);
  return "";
}

inline std::string op_difference(const Op& a, const Op& b) {
  if (a.builtin_code != b.builtin_code) return fmt::format("builtin code {} vs {}", a.builtin_code, b.builtin_code);
  if (a.custom_code != b.custom_code) return fmt::format("custom code '{}' vs '{}'", a.custom_code, b.custom_code);
  if (a.custom_options != b.custom_options) {
    return fmt::format("custom options of {} vs {} bytes", a.custom_options.size(), b.custom_options.size());
  }
  if (a.version != b.version) return fmt::format("version {} vs {}", a.version, b.version);
  if (a.inputs != b.inputs) return "inputs";
  if (a.outputs != b.outputs) return "outputs";
  if (!same_params(a.params, b.params)) return "params";
  if (a.has_undecoded_options != b.has_undecoded_options) return "has_undecoded_options";
  return "";
}

inline std::vector<MetadataEntry> metadata_without_plan(const Graph& graph, bool keep_plan) {
  std::vector<MetadataEntry> entries;
  for (const MetadataEntry& entry : graph.metadata) {
    if (keep_plan || entry.name != kOfflinePlanMetadataName) entries.push_back(entry);
  }
  return entries;
}

}  // namespace graph_equality_detail

inline std::string graph_difference(const Graph& a, const Graph& b, const GraphComparison& how = {}) {
  using namespace graph_equality_detail;
  if (how.compare_source && a.source != b.source) return fmt::format("source '{}' vs '{}'", a.source, b.source);
  if (a.version != b.version) return fmt::format("version {} vs {}", a.version, b.version);
  if (how.compare_description && a.description != b.description) {
    return fmt::format("description '{}' vs '{}'", a.description, b.description);
  }
  if (a.subgraphs.size() != b.subgraphs.size()) {
    return fmt::format("{} vs {} subgraphs", a.subgraphs.size(), b.subgraphs.size());
  }
  for (size_t s = 0; s < a.subgraphs.size(); ++s) {
    const Subgraph& sa = a.subgraphs[s];
    const Subgraph& sb = b.subgraphs[s];
    if (sa.name != sb.name) return fmt::format("subgraph {} name '{}' vs '{}'", s, sa.name, sb.name);
    if (sa.inputs != sb.inputs) return fmt::format("subgraph {} inputs", s);
    if (sa.outputs != sb.outputs) return fmt::format("subgraph {} outputs", s);
    if (sa.tensors.size() != sb.tensors.size()) return fmt::format("subgraph {} tensor count", s);
    for (size_t t = 0; t < sa.tensors.size(); ++t) {
      std::string d = tensor_difference(sa.tensors[t], sb.tensors[t]);
      if (!d.empty()) return fmt::format("subgraph {} tensor {}: {}", s, t, d);
    }
    if (sa.ops.size() != sb.ops.size()) return fmt::format("subgraph {} op count", s);
    for (size_t i = 0; i < sa.ops.size(); ++i) {
      std::string d = op_difference(sa.ops[i], sb.ops[i]);
      if (!d.empty()) return fmt::format("subgraph {} op {}: {}", s, i, d);
    }
  }
  auto ma = metadata_without_plan(a, how.compare_offline_plan);
  auto mb = metadata_without_plan(b, how.compare_offline_plan);
  if (ma.size() != mb.size()) return fmt::format("{} vs {} metadata entries", ma.size(), mb.size());
  for (size_t m = 0; m < ma.size(); ++m) {
    if (ma[m].name != mb[m].name || ma[m].buffer_index != mb[m].buffer_index || ma[m].data != mb[m].data) {
      return fmt::format("metadata {}: '{}'@{} vs '{}'@{}", m, ma[m].name, ma[m].buffer_index, mb[m].name,
                         mb[m].buffer_index);
    }
  }
  if (how.compare_offline_plan) {
    if (a.offline_plan.has_value() != b.offline_plan.has_value()) return "offline plan presence";
    if (a.offline_plan && (a.offline_plan->version != b.offline_plan->version ||
                           a.offline_plan->subgraph_count != b.offline_plan->subgraph_count ||
                           a.offline_plan->offsets != b.offline_plan->offsets)) {
      return "offline plan";
    }
  }
  return "";
}

}  // namespace dmo::test

#include "dmo/report/model_info.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace dmo {

namespace {

std::string quantization_text(const Quantization& q) {
  if (q.empty()) return "";
  if (q.per_channel()) return fmt::format("per-channel x{} (dim {})", q.scale.size(), q.quantized_dimension);
  return fmt::format("scale {:g} zp {}", q.scale[0], q.zero_point.empty() ? 0 : q.zero_point[0]);
}

std::string kind_text(const Tensor& t) {
  if (t.is_constant) return "const";
  if (t.is_variable) return "variable";
  return "activation";
}

}  // namespace

nlohmann::json model_info_json(const Graph& graph) {
  nlohmann::json subgraphs = nlohmann::json::array();
  for (size_t s = 0; s < graph.subgraphs.size(); ++s) {
    const Subgraph& sg = graph.subgraphs[s];
    nlohmann::json tensors = nlohmann::json::array();
    for (size_t t = 0; t < sg.tensors.size(); ++t) {
      const Tensor& tensor = sg.tensors[t];
      nlohmann::json row = {{"index", t}, {"name", tensor.name}, {"type", data_type_name(tensor.type)},
                            {"shape", tensor.shape}, {"bytes", tensor.byte_size}, {"kind", kind_text(tensor)}};
      if (!tensor.quantization.empty()) {
        row["quantization"] = {{"scale", tensor.quantization.scale},
                               {"zero_point", tensor.quantization.zero_point},
                               {"quantized_dimension", tensor.quantization.quantized_dimension}};
      }
      tensors.push_back(std::move(row));
    }
    nlohmann::json ops = nlohmann::json::array();
    for (size_t i = 0; i < sg.ops.size(); ++i) {
      const Op& op = sg.ops[i];
      ops.push_back({{"index", i}, {"op", op.name()}, {"builtin_code", op.builtin_code}, {"version", op.version},
                     {"inputs", op.inputs}, {"outputs", op.outputs}});
    }
    subgraphs.push_back({{"index", s}, {"name", sg.name}, {"inputs", sg.inputs}, {"outputs", sg.outputs},
                         {"ops", ops}, {"tensors", tensors}});
  }
  nlohmann::json metadata = nlohmann::json::array();
  for (const MetadataEntry& m : graph.metadata) metadata.push_back({{"name", m.name}, {"buffer", m.buffer_index}});
  return {{"model", graph.source}, {"version", graph.version}, {"description", graph.description},
          {"subgraphs", subgraphs}, {"metadata", metadata}, {"has_offline_plan", graph.offline_plan.has_value()}};
}

std::string model_info_text(const Graph& graph) {
  std::string out = fmt::format("model: {}\nschema version {}, {} subgraph(s)", graph.source, graph.version,
                                graph.subgraphs.size());
  if (!graph.description.empty()) out += fmt::format(", description '{}'", graph.description);
  out += '\n';
  for (const MetadataEntry& m : graph.metadata) out += fmt::format("metadata '{}' (buffer {})\n", m.name, m.buffer_index);
  for (size_t s = 0; s < graph.subgraphs.size(); ++s) {
    const Subgraph& sg = graph.subgraphs[s];
    out += fmt::format("\nsubgraph {} '{}': inputs {} outputs {}\n", s, sg.name, sg.inputs, sg.outputs);
    out += fmt::format("  {:>4}  {:<24} {:<20} {}\n", "op", "kind", "inputs", "outputs");
    for (size_t i = 0; i < sg.ops.size(); ++i) {
      const Op& op = sg.ops[i];
      out += fmt::format("  {:>4}  {:<24} {:<20} {}\n", i, op.name(), fmt::format("{}", op.inputs),
                         fmt::format("{}", op.outputs));
    }
    out += fmt::format("  {:>4}  {:<10} {:<10} {:<18} {:>10}  {:<30} {}\n", "t", "kind", "type", "shape", "bytes",
                       "quantization", "name");
    for (size_t t = 0; t < sg.tensors.size(); ++t) {
      const Tensor& tensor = sg.tensors[t];
      out += fmt::format("  {:>4}  {:<10} {:<10} {:<18} {:>10}  {:<30} {}\n", t, kind_text(tensor),
                         data_type_name(tensor.type), shape_to_string(tensor.shape), tensor.byte_size,
                         quantization_text(tensor.quantization), tensor.name);
    }
  }
  return out;
}

}  // namespace dmo

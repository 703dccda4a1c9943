#include "dmo/pipeline/tflm_export.h"

#include <fmt/format.h>

#include <cctype>
#include <filesystem>

namespace dmo {
namespace {

// A C identifier from a file name: other characters become '_'.
std::string c_identifier(const std::string& stem) {
  std::string ident;
  for (char c : stem) ident.push_back(std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  if (ident.empty() || std::isdigit(static_cast<unsigned char>(ident[0]))) ident = "model_" + ident;
  return ident;
}

std::string upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

}  // namespace

std::string offline_plan_c_header(const Graph& graph, const std::string& source, const std::string& stem,
                                  const TflmDeployment& deployment) {
  const OfflinePlan& plan = deployment.words;
  const std::string ident = c_identifier(stem);
  const std::string macro = upper(ident);
  const std::optional<int64_t> tflm_total = largest_tflm_arena(deployment);
  std::vector<int32_t> words = {plan.version, plan.subgraph_count, static_cast<int32_t>(plan.offsets.size())};
  words.insert(words.end(), plan.offsets.begin(), plan.offsets.end());
  std::string out = fmt::format(
      "// The offline arena plan `dmo export` deploys for {0}.\n"
      "//\n"
      "// TFLM reads an offline plan only from the model's \"OfflineMemoryAllocation\"\n"
      "// metadata, whose buffer holds exactly these little-endian int32 words;\n"
      "// `dmo export MODEL -o OUT.tflite` writes them there. Words: version 0,\n"
      "// subgraph count, tensor count N over all subgraphs, then N byte offsets\n"
      "// from the start of the arena's non-persistent section (-1: TFLM plans it).\n"
      "//\n"
      "// Plan: {6}.\n"
      "// Safe for: {7}.\n"
      "// The plan's safe overlaps hold only for kernels reading and writing in\n"
      "// that order.\n"
      "// {8}.\n"
      "// With it the non-persistent section (TFLM's sizes rounded up to 16, its\n"
      "// kernels' scratch buffers included) needs {1}_ARENA_BYTES; without it\n"
      "// {2} bytes. TFLM's persistent allocations (tensor structs, op data,\n"
      "// variable tensors) come on top: {9}\n"
      "#ifndef {1}_OFFLINE_PLAN_H_\n"
      "#define {1}_OFFLINE_PLAN_H_\n"
      "\n"
      "#include <stdint.h>\n"
      "\n"
      "#define {1}_ARENA_BYTES {3}\n"      "{10}"
      "#define {1}_OFFLINE_PLAN_WORDS {4}\n"
      "\n"
      "static const int32_t {5}_offline_plan[{1}_OFFLINE_PLAN_WORDS] = {{",
      std::filesystem::path(source).filename().string(), macro, deployment.without_export_bytes,
      deployment.arena_bytes, words.size(), ident, deployment.reason, deployment_safe_for(deployment), graph_inputs_statement(graph, deployment),
      tflm_total ? fmt::format("on a 32-bit target the interpreter needs\n// {}_TFLM_ARENA_BYTES in all (MicroInterpreter::arena_used_bytes()).", macro)
                 : std::string("after AllocateTensors(),\n// MicroInterpreter::arena_used_bytes() gives the total."),
      tflm_total ? fmt::format("#define {}_TFLM_ARENA_BYTES {}\n", macro, *tflm_total) : std::string());
  for (size_t i = 0; i < words.size(); ++i) {
    out += i % 8 == 0 ? "\n    " : " ";
    out += fmt::format("{},", words[i]);
  }
  out += fmt::format("\n}};\n\n#endif  // {}_OFFLINE_PLAN_H_\n", macro);
  return out;
}

}  // namespace dmo

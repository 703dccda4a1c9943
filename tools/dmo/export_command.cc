// `dmo export`: the model with dmo's arena plan stored as TFLM's
// OfflineMemoryAllocation metadata, and/or the same plan as a C header.
#include <fmt/format.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <optional>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "dmo/error.h"
#include "dmo/report/plan_report.h"
#include "dmo/runtime/tensor_placement.h"
#include "dmo/tflite/offline_plan.h"
#include "dmo/tflite/reader.h"
#include "dmo/tflite/writer.h"
#include "output_file.h"
#include "zoo_file.h"

namespace dmo::cli {

namespace {

struct ModelFile {
  std::string source;  // path or zoo name, for messages
  std::string stem;    // file name without directory and extension
  std::vector<uint8_t> bytes;
};

ModelFile read_model_file(const std::string& model) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(model, ec)) {
    if (fs::is_directory(model, ec)) throw Error(fmt::format("{}: is a directory, not a model", model));
    std::ifstream in(model, std::ios::binary | std::ios::ate);
    if (!in) throw Error(fmt::format("{}: cannot open file", model));
    std::streamoff size = in.tellg();
    if (size < 0) throw Error(fmt::format("{}: cannot read file", model));
    if (static_cast<uint64_t>(size) >= (uint64_t{1} << 31)) {
      throw Error(fmt::format("{}: file is {} bytes, larger than a TFLite flatbuffer can be", model, size));
    }
    std::vector<uint8_t> bytes(static_cast<size_t>(size));
    in.seekg(0);
    if (!in.read(reinterpret_cast<char*>(bytes.data()), size)) throw Error(fmt::format("{}: cannot read file", model));
    return {model, fs::path(model).stem().string(), std::move(bytes)};
  }
  if (is_zoo_model_name(model)) return {model, model, zoo_model_file(model)};
  throw Error(fmt::format("{}: no such file, and not a zoo model name (for example {})", model, kDefaultZooModel));
}

// dmo's offsets for the tensors TFLM plans in subgraph 0; -1 (TFLM plans it,
// or keeps it out of the arena) for constants, variables, zero-size tensors
// and every tensor of the other subgraphs.
OfflinePlan offline_plan_from_report(const Graph& graph, const PlanReport& report, int64_t& planned) {
  TensorPlacement placement = placement_from_plan(graph.main(), report.problem, report.dmo);
  OfflinePlan plan;
  plan.version = 0;
  plan.subgraph_count = static_cast<int32_t>(graph.subgraphs.size());
  plan.offsets.assign(graph.total_tensor_count(), -1);
  planned = 0;
  for (size_t t = 0; t < placement.offsets.size(); ++t) {
    int64_t offset = placement.offsets[t];
    if (offset < 0) continue;
    if (offset > std::numeric_limits<int32_t>::max()) {
      throw Error(fmt::format("{}: tensor {} is planned at offset {}, beyond TFLM's int32 offsets", graph.source, t,
                              offset));
    }
    plan.offsets[t] = static_cast<int32_t>(offset);  // subgraph 0's tensors come first
    ++planned;
  }
  return plan;
}

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

std::string c_header_text(const ModelFile& model, const OfflinePlan& plan, const PlanReport& report) {
  const std::string ident = c_identifier(model.stem);
  const std::string macro = upper(ident);
  std::vector<int32_t> words = {plan.version, plan.subgraph_count, static_cast<int32_t>(plan.offsets.size())};
  words.insert(words.end(), plan.offsets.begin(), plan.offsets.end());
  std::string out = fmt::format(
      "// dmo's offline arena plan for {0}, written by `dmo export`.\n"
      "//\n"
      "// TFLM reads an offline plan only from the model's \"OfflineMemoryAllocation\"\n"
      "// metadata, whose buffer holds exactly these little-endian int32 words;\n"
      "// `dmo export MODEL -o OUT.tflite` writes them there. Words: version 0,\n"
      "// subgraph count, tensor count N over all subgraphs, then N byte offsets\n"
      "// from the start of the arena's non-persistent section (-1: TFLM plans it).\n"
      "//\n"
      "// With this plan the non-persistent section needs {1}_ARENA_BYTES\n"
      "// (TFLM's own greedy plan: {2} bytes). Give the interpreter that plus TFLM's\n"
      "// persistent allocations (tensor structs, op data, variable tensors); after\n"
      "// AllocateTensors(), MicroInterpreter::arena_used_bytes() gives the total.\n"
      "#ifndef {1}_OFFLINE_PLAN_H_\n"
      "#define {1}_OFFLINE_PLAN_H_\n"
      "\n"
      "#include <stdint.h>\n"
      "\n"
      "#define {1}_ARENA_BYTES {3}\n"
      "#define {1}_OFFLINE_PLAN_WORDS {4}\n"
      "\n"
      "static const int32_t {5}_offline_plan[{1}_OFFLINE_PLAN_WORDS] = {{",
      std::filesystem::path(model.source).filename().string(), macro, report.tflm_greedy.arena_size, report.dmo.arena_size, words.size(), ident);
  for (size_t i = 0; i < words.size(); ++i) {
    out += i % 8 == 0 ? "\n    " : " ";
    out += fmt::format("{},", words[i]);
  }
  out += fmt::format("\n}};\n\n#endif  // {}_OFFLINE_PLAN_H_\n", macro);
  return out;
}

}  // namespace

Command add_export_command(CLI::App& app) {
  struct Options {
    std::string model, output, c_header;
    bool json = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "export", "Store dmo's arena plan in a .tflite file as TFLM's OfflineMemoryAllocation metadata (or a C header)");
  cmd->add_option("model", o->model, "a .tflite file, or a zoo model name (written as a .tflite file first)")
      ->required();
  cmd->add_option("-o,--output", o->output, "the .tflite file to write: the model unchanged plus the plan");
  cmd->add_option("--c-header", o->c_header, "also (or instead) write the plan's words and arena size as a C header");
  cmd->add_flag("--json", o->json, "print one JSON object");
  return [o] {
    if (o->output.empty() && o->c_header.empty()) {
      throw Error("export: give -o OUT.tflite, --c-header FILE.h, or both");
    }
    ModelFile model = read_model_file(o->model);
    Graph graph = read_tflite_bytes(model.bytes, model.source);
    // TFLM's reference kernels walk ascending: plan for that order only.
    PlanReportOptions ascending_only;
    ascending_only.allow_descending = false;
    PlanReport report = make_plan_report(graph, ascending_only);
    int64_t planned = 0;
    OfflinePlan plan = offline_plan_from_report(graph, report, planned);

    // Everything is computed and checked before the first file is moved into place.
    std::optional<OutputFile> tflite, header;
    if (!o->output.empty()) {
      std::vector<uint8_t> bytes = with_offline_plan(model.bytes, plan, model.source);
      Graph back = read_tflite_bytes(bytes, o->output);
      if (!back.offline_plan || back.offline_plan->offsets != plan.offsets) {
        throw Error(fmt::format("{}: internal error: the written plan does not read back", o->output));
      }
      tflite.emplace(o->output);
      tflite->write(bytes);
    }
    if (!o->c_header.empty()) {
      header.emplace(o->c_header);
      header->write(c_header_text(model, plan, report));
    }
    if (tflite) tflite->commit();
    if (header) header->commit();

    if (o->json) {
      nlohmann::json j = {{"model", model.source},
                          {"output", o->output.empty() ? nlohmann::json(nullptr) : nlohmann::json(o->output)},
                          {"c_header", o->c_header.empty() ? nlohmann::json(nullptr) : nlohmann::json(o->c_header)},
                          {"arena_bytes", report.dmo.arena_size},
                          {"tflm_greedy_bytes", report.tflm_greedy.arena_size},
                          {"tensors_planned", planned},
                          {"subgraphs", graph.subgraphs.size()}};
      std::cout << j.dump(2) << '\n';
      return 0;
    }
    if (tflite) std::cout << "wrote " << o->output << '\n';
    if (header) std::cout << "wrote " << o->c_header << '\n';
    std::cout << fmt::format(
        "{}: dmo's plan places {} of {} tensors (the arena tensors of subgraph 0); the rest are -1, left to TFLM\n"
        "arena (non-persistent part) with this plan: {} bytes; with TFLM's own greedy plan: {} bytes\n"
        "give TFLM at least {} bytes plus its persistent allocations (tensor structs, op data, variables)\n",
        model.source, planned, plan.offsets.size(), report.dmo.arena_size, report.tflm_greedy.arena_size,
        report.dmo.arena_size);
    if (graph.subgraphs.size() > 1) {
      std::cout << fmt::format("note: the tensors of subgraphs 1..{} are planned by TFLM and may need more\n",
                               graph.subgraphs.size() - 1);
    }
    return 0;
  };
}

}  // namespace dmo::cli

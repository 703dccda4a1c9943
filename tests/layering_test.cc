// The modules' include graph follows the layering of docs/ARCHITECTURE.md:
// each module includes only the modules listed below it here, so the graph
// has no cycle, and the kernels (ops) depend on the model alone.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <string>

namespace dmo {
namespace {

namespace fs = std::filesystem;

// Module -> the modules it may include. Anything not listed may not be
// included; a module missing from this table fails the test.
const std::map<std::string, std::set<std::string>>& allowed_dependencies() {
  static const std::map<std::string, std::set<std::string>> table = {
      {"model", {}},
      {"ops", {"model"}},
      {"schedule", {"model", "ops"}},
      {"tflite", {"model"}},
      {"zoo", {"model"}},
      {"trace", {"model"}},
      {"plan", {"model"}},
      {"runtime", {"model", "ops", "schedule", "plan"}},
      {"transform", {"model", "ops", "schedule"}},
      {"overlap", {"model", "ops", "schedule", "plan", "runtime", "transform"}},
      {"pipeline", {"model", "ops", "schedule", "plan", "runtime", "overlap", "transform", "tflite", "zoo"}},
      {"report", {"model", "ops", "schedule", "plan", "runtime", "overlap", "transform", "pipeline"}},
      {"codegen", {"model", "ops", "schedule", "plan", "runtime"}},
  };
  return table;
}

// module -> (file, included module) pairs found in include/dmo/<module> and src/<module>.
std::map<std::string, std::vector<std::pair<std::string, std::string>>> include_graph(const fs::path& root) {
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> graph;
  const std::regex include_line(R"(^\s*#\s*include\s*"dmo/([a-z_]+)/)");
  for (const char* top : {"include/dmo", "src"}) {
    for (const auto& module_dir : fs::directory_iterator(root / top)) {
      if (!module_dir.is_directory()) continue;
      const std::string module = module_dir.path().filename().string();
      auto& edges = graph[module];
      for (const auto& entry : fs::recursive_directory_iterator(module_dir.path())) {
        if (!entry.is_regular_file()) continue;
        std::ifstream in(entry.path());
        std::string line;
        std::smatch m;
        while (std::getline(in, line)) {
          if (std::regex_search(line, m, include_line) && m[1] != module) {
            edges.emplace_back(fs::relative(entry.path(), root).string(), m[1]);
          }
        }
      }
    }
  }
  return graph;
}

TEST(Layering, ModulesIncludeOnlyTheModulesBelowThem) {
  const auto graph = include_graph(DMO_SOURCE_DIR);
  ASSERT_TRUE(graph.count("ops") && graph.count("runtime") && graph.count("model"));
  for (const auto& [module, edges] : graph) {
    auto allowed = allowed_dependencies().find(module);
    ASSERT_NE(allowed, allowed_dependencies().end()) << "module " << module << " is not in the layering table";
    for (const auto& [file, included] : edges) {
      EXPECT_TRUE(allowed->second.count(included)) << file << " (module " << module << ") includes dmo/" << included;
    }
  }
}

TEST(Layering, TheTableHasNoCycle) {
  // Depth-first search over the allowed edges: a module may not reach itself.
  const auto& table = allowed_dependencies();
  std::map<std::string, int> state;  // 1 = on the stack, 2 = done
  std::function<bool(const std::string&)> acyclic = [&](const std::string& m) {
    if (state[m] == 1) return false;
    if (state[m] == 2) return true;
    state[m] = 1;
    for (const std::string& d : table.at(m)) {
      if (!table.count(d) || !acyclic(d)) return false;
    }
    state[m] = 2;
    return true;
  };
  for (const auto& [module, deps] : table) EXPECT_TRUE(acyclic(module)) << module;
}

TEST(Layering, KernelsDependOnTheModelAlone) {
  const auto graph = include_graph(DMO_SOURCE_DIR);
  for (const auto& [file, included] : graph.at("ops")) {
    EXPECT_EQ(included, "model") << file << " includes dmo/" << included;
  }
}

}  // namespace
}  // namespace dmo

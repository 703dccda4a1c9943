// Read, write, read again. A model the reader accepts is written twice, as
// dmo writes files: whole by the graph writer (zoo models, `dmo zoo`) and
// with an offline plan added in front of the original bytes (`dmo export`).
// Each written file must read back to the same graph, or the writer must
// refuse with a dmo::Error; anything else is a finding (abort).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>

#include "dmo/error.h"
#include "dmo/tflite/graph_writer.h"
#include "dmo/tflite/reader.h"
#include "dmo/tflite/writer.h"
#include "graph_equality.h"

namespace {

[[noreturn]] void mismatch(const char* how, const std::string& difference) {
  std::fprintf(stderr, "round trip through %s changed the graph: %s\n", how, difference.c_str());
  std::abort();
}

// An offline plan of every tensor, one after another (offsets the writer
// must carry, whatever the tensors are).
dmo::OfflinePlan stacked_plan(const dmo::Graph& graph) {
  dmo::OfflinePlan plan;
  plan.subgraph_count = static_cast<int32_t>(graph.subgraphs.size());
  int64_t next = 0;
  for (const dmo::Subgraph& subgraph : graph.subgraphs) {
    for (const dmo::Tensor& tensor : subgraph.tensors) {
      plan.offsets.push_back(static_cast<int32_t>(next % (int64_t{1} << 30)));
      next += (tensor.byte_size + 15) / 16 * 16;
    }
  }
  return plan;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> bytes(data, size);
  dmo::Graph graph;
  try {
    graph = dmo::read_tflite_bytes(bytes, "input");
  } catch (const dmo::Error&) {
    return 0;
  }
  try {
    const std::vector<uint8_t> written = dmo::write_tflite(graph);
    const dmo::Graph back = dmo::read_tflite_bytes(written, "written");
    const std::string difference = dmo::test::graph_difference(graph, back, {.compare_offline_plan = true});
    if (!difference.empty()) mismatch("the graph writer", difference);
  } catch (const dmo::Error&) {
  }
  try {
    const dmo::OfflinePlan plan = stacked_plan(graph);
    const std::vector<uint8_t> exported = dmo::with_offline_plan(bytes, plan, "input");
    const dmo::Graph back = dmo::read_tflite_bytes(exported, "exported");
    const std::string difference = dmo::test::graph_difference(graph, back);
    if (!difference.empty()) mismatch("the offline-plan writer", difference);
    if (!back.offline_plan || back.offline_plan->offsets != plan.offsets) {
      mismatch("the offline-plan writer", "the plan read back differs from the plan written");
    }
  } catch (const dmo::Error&) {
  }
  return 0;
}

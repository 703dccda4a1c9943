// The .tflite reader on hostile bytes: the flatbuffers verifier, graph
// construction and every subgraph's lifetimes (the model's timeline, which
// also checks the calls between subgraphs). A dmo::Error is a clean refusal;
// anything else (a crash, a sanitizer report, a leak, a hang, an allocation
// past libFuzzer's limits) is a finding.
#include <cstddef>
#include <cstdint>
#include <span>

#include "dmo/error.h"
#include "dmo/model/lifetime.h"
#include "dmo/model/model_timeline.h"
#include "dmo/tflite/reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const dmo::Graph graph = dmo::read_tflite_bytes(std::span<const uint8_t>(data, size), "input");
    for (const dmo::Subgraph& subgraph : graph.subgraphs) dmo::compute_lifetimes(subgraph);
    dmo::model_timeline(graph);
  } catch (const dmo::Error&) {
  }
  return 0;
}

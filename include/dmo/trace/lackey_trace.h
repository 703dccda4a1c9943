// Reads the log of `valgrind --tool=lackey --trace-mem=yes` as it streams:
// "I  addr,size" lines are instructions (the clock), " L", " S" and " M"
// lines loads, stores and modifies (a load then a store), and the
// DMO_TRACE_BEGIN / DMO_TRACE_END lines that include/dmo_trace.h writes
// bracket a layer and name its input and output buffers. Memory use does
// not grow with the trace: one open layer at a time, O(1) state for its O_s,
// and a bounded sample when a picture is wanted.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dmo/trace/access_sampler.h"
#include "dmo/trace/layer_overlap.h"

namespace dmo {

// One marked layer, once its END was read.
struct LayerTrace {
  std::string name;
  AddressRange input, output;
  int64_t instructions = 0;             // between BEGIN and END
  int64_t loads = 0;                    // kept: touching the input
  int64_t stores = 0;                   // kept: touching the output
  int64_t safe_overlap = 0;             // bytes: output below the input (ascending walk)
  int64_t safe_overlap_descending = 0;  // bytes: output above the input (descending walk)

  int64_t events() const { return loads + stores; }
};

struct LackeyTraceOptions {
  // Sample the accesses of one layer for a picture: the first layer, or the
  // one named picture_layer.
  bool picture = false;
  std::string picture_layer;
  size_t max_points = 20000;
};

class LackeyTraceReader {
 public:
  explicit LackeyTraceReader(LackeyTraceOptions options = {});
  ~LackeyTraceReader();
  LackeyTraceReader(LackeyTraceReader&&) noexcept;
  LackeyTraceReader& operator=(LackeyTraceReader&&) noexcept;

  // Any chunking of the log; lines may span chunks. Throws dmo::Error on a
  // malformed marker, nested layers or an END that ends no open layer.
  void feed(std::string_view bytes);
  // The end of the log: an unfinished line is read, an open layer is an error.
  void finish();

  const std::vector<LayerTrace>& layers() const { return layers_; }
  // The picture of the chosen layer, once it ended.
  const std::optional<AccessPicture>& picture() const { return picture_; }
  int64_t lines() const { return lines_; }
  int64_t memory_events() const { return memory_events_; }  // all L/S/M lines
  int64_t instructions() const { return instructions_; }    // all I lines
  // Valgrind's own last messages ("==pid== ..."), for error reports.
  std::string recent_messages() const;

 private:
  struct OpenLayer;
  void line(std::string_view text);
  void marker(std::string_view text, size_t at);
  void begin_layer(std::string_view fields, std::string_view text);
  void end_layer(std::string_view name);
  void memory_event(char kind, std::string_view text);
  void valgrind_message(std::string_view text);

  LackeyTraceOptions options_;
  std::string partial_;  // an unfinished line from the previous chunk
  std::unique_ptr<OpenLayer> open_;
  std::vector<LayerTrace> layers_;
  std::optional<AccessPicture> picture_;
  std::deque<std::string> messages_;
  bool past_banner_ = false, in_summary_ = false;
  int64_t lines_ = 0, memory_events_ = 0, instructions_ = 0;
};

}  // namespace dmo

#include "dmo/trace/lackey_trace.h"

#include <fmt/format.h>

#include <cstring>
#include <tuple>

#include "dmo/error.h"
#include "dmo/model/limits.h"

namespace dmo {

namespace {

constexpr std::string_view kBegin = "DMO_TRACE_BEGIN ";
constexpr std::string_view kEnd = "DMO_TRACE_END ";
constexpr size_t kKeptMessages = 20;

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Parses "addr,size" (hex address, decimal size) at the start of `s`.
bool parse_address_size(std::string_view s, uint64_t& address, uint64_t& size) {
  size_t i = 0;
  address = 0;
  size = 0;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) i = 2;
  size_t digits = 0;
  for (; i < s.size(); ++i, ++digits) {
    int d = hex_digit(s[i]);
    if (d < 0) break;
    address = address << 4 | static_cast<uint64_t>(d);
  }
  if (digits == 0 || i >= s.size() || s[i] != ',') return false;
  size_t size_digits = 0;
  for (++i; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i, ++size_digits)
    size = size * 10 + static_cast<uint64_t>(s[i] - '0');
  return size_digits > 0;
}

// The next space-separated field of `s` from `at`, or empty.
std::string_view next_field(std::string_view s, size_t& at) {
  while (at < s.size() && s[at] == ' ') ++at;
  size_t start = at;
  while (at < s.size() && s[at] != ' ') ++at;
  return s.substr(start, at - start);
}

bool parse_unsigned(std::string_view field, int base, uint64_t& value) {
  value = 0;
  if (base == 16 && field.size() > 2 && field[0] == '0' && (field[1] == 'x' || field[1] == 'X')) field.remove_prefix(2);
  if (field.empty()) return false;
  for (char c : field) {
    int d = base == 16 ? hex_digit(c) : (c >= '0' && c <= '9' ? c - '0' : -1);
    if (d < 0) return false;
    value = value * static_cast<uint64_t>(base) + static_cast<uint64_t>(d);
  }
  return true;
}

std::string_view trim_end(std::string_view s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ')) s.remove_suffix(1);
  return s;
}

}  // namespace

struct LackeyTraceReader::OpenLayer {
  OpenLayer(std::string n, AddressRange in, AddressRange out) : name(std::move(n)), overlap(in, out) {}
  std::string name;
  LayerOverlap overlap;
  int64_t instructions = 0;
  std::unique_ptr<AccessSampler> sampler;
};

LackeyTraceReader::LackeyTraceReader(LackeyTraceOptions options) : options_(std::move(options)) {}
LackeyTraceReader::~LackeyTraceReader() = default;
LackeyTraceReader::LackeyTraceReader(LackeyTraceReader&&) noexcept = default;
LackeyTraceReader& LackeyTraceReader::operator=(LackeyTraceReader&&) noexcept = default;

void LackeyTraceReader::feed(std::string_view bytes) {
  if (!partial_.empty()) {
    const char* newline = static_cast<const char*>(std::memchr(bytes.data(), '\n', bytes.size()));
    if (!newline) {
      partial_.append(bytes);
      return;
    }
    size_t n = static_cast<size_t>(newline - bytes.data());
    partial_.append(bytes.substr(0, n));
    std::string joined = std::move(partial_);
    partial_.clear();
    line(joined);
    bytes.remove_prefix(n + 1);
  }
  while (!bytes.empty()) {
    const char* newline = static_cast<const char*>(std::memchr(bytes.data(), '\n', bytes.size()));
    if (!newline) {
      partial_.assign(bytes);
      return;
    }
    size_t n = static_cast<size_t>(newline - bytes.data());
    line(bytes.substr(0, n));
    bytes.remove_prefix(n + 1);
  }
}

void LackeyTraceReader::finish() {
  if (!partial_.empty()) {
    std::string last = std::move(partial_);
    partial_.clear();
    line(last);
  }
  if (open_) {
    throw Error(fmt::format("trace: layer '{}' never ends: DMO_TRACE_LAYER_END(\"{}\") was not reached", open_->name,
                            open_->name));
  }
}

void LackeyTraceReader::line(std::string_view text) {
  ++lines_;
  if (text.empty()) return;
  // The hot path: instruction and memory lines, most of a trace.
  if (text[0] == 'I' && text.size() > 1 && text[1] == ' ') {
    ++instructions_;
    if (open_) ++open_->instructions;
    return;
  }
  if (text[0] == ' ' && text.size() > 3 && text[2] == ' ' && (text[1] == 'L' || text[1] == 'S' || text[1] == 'M')) {
    ++memory_events_;
    if (open_) memory_event(text[1], text.substr(3));
    return;
  }
  size_t at = text.find("DMO_TRACE_");
  if (at != std::string_view::npos) {
    marker(trim_end(text), at);
    return;
  }
  if (text.size() > 2 && text[0] == '=' && text[1] == '=') valgrind_message(trim_end(text));
}

void LackeyTraceReader::memory_event(char kind, std::string_view text) {
  uint64_t address = 0, size = 0;
  if (!parse_address_size(text, address, size)) return;  // not lackey's: ignore
  OpenLayer& layer = *open_;
  const int64_t time = layer.instructions;
  if (kind == 'L' || kind == 'M') {
    if (layer.overlap.load(address, size) && layer.sampler) {
      const int64_t lowest = layer.overlap.input().bytes_of(address, size).lowest;
      layer.sampler->read(time, lowest, lowest);
    }
  }
  if (kind == 'S' || kind == 'M') {
    if (layer.overlap.store(address, size) && layer.sampler) {
      const AccessBytes bytes = layer.overlap.output().bytes_of(address, size);
      layer.sampler->write(time, bytes.highest, bytes.lowest);
    }
  }
}

void LackeyTraceReader::marker(std::string_view text, size_t at) {
  std::string_view rest = text.substr(at);
  if (rest.substr(0, kBegin.size()) == kBegin) return begin_layer(rest.substr(kBegin.size()), text);
  if (rest.substr(0, kEnd.size()) == kEnd) return end_layer(rest.substr(kEnd.size()));
  // Some other text that happens to contain the prefix: not ours.
}

void LackeyTraceReader::begin_layer(std::string_view fields, std::string_view text) {
  size_t at = 0;
  uint64_t in_address = 0, in_bytes = 0, out_address = 0, out_bytes = 0;
  bool ok =
      parse_unsigned(next_field(fields, at), 16, in_address) && parse_unsigned(next_field(fields, at), 10, in_bytes) &&
      parse_unsigned(next_field(fields, at), 16, out_address) && parse_unsigned(next_field(fields, at), 10, out_bytes);
  while (at < fields.size() && fields[at] == ' ') ++at;
  std::string name(fields.substr(std::min(at, fields.size())));
  if (!ok || name.empty()) {
    throw Error(
        fmt::format("trace: malformed layer marker '{}' (expected DMO_TRACE_BEGIN <input address> <input bytes> "
                    "<output address> <output bytes> <name>)",
                    text));
  }
  // A traced buffer is a tensor: beyond the tensor limit, or running past the
  // top of the address space, the marker cannot describe a real layer.
  for (const auto& [what, address, bytes] : {std::tuple{"input", in_address, in_bytes},
                                             std::tuple{"output", out_address, out_bytes}}) {
    if (bytes > static_cast<uint64_t>(kMaxTensorBytes) || address > UINT64_MAX - bytes) {
      throw Error(fmt::format("trace: layer '{}' has an {} of {} bytes at 0x{:x}: larger than the {}-byte tensor "
                              "limit or past the end of the address space",
                              name, what, bytes, address, kMaxTensorBytes));
    }
  }
  if (open_) {
    throw Error(fmt::format("trace: layer '{}' begins inside layer '{}': layers must not nest", name, open_->name));
  }
  open_ = std::make_unique<OpenLayer>(name, AddressRange{in_address, in_bytes}, AddressRange{out_address, out_bytes});
  const bool wanted = options_.picture_layer.empty() || options_.picture_layer == name;
  if (options_.picture && !picture_ && wanted) open_->sampler = std::make_unique<AccessSampler>(options_.max_points);
}

void LackeyTraceReader::end_layer(std::string_view name) {
  if (!open_) throw Error(fmt::format("trace: layer '{}' ends but never began", name));
  if (name != open_->name) {
    throw Error(
        fmt::format("trace: layer '{}' ends while layer '{}' is open: layers must not nest", name, open_->name));
  }
  LayerTrace done;
  done.name = open_->name;
  done.input = open_->overlap.input();
  done.output = open_->overlap.output();
  done.instructions = open_->instructions;
  done.loads = open_->overlap.loads();
  done.stores = open_->overlap.stores();
  done.safe_overlap = open_->overlap.safe_overlap();
  done.safe_overlap_descending = open_->overlap.safe_overlap_descending();
  if (open_->sampler) {
    picture_ = open_->sampler->take(done.name, static_cast<int64_t>(done.input.bytes),
                                    static_cast<int64_t>(done.output.bytes), done.safe_overlap, done.instructions);
  }
  layers_.push_back(std::move(done));
  open_.reset();
}

void LackeyTraceReader::valgrind_message(std::string_view text) {
  // Keep what valgrind says about the run (a signal, an error), not its
  // banner (up to "Command:") nor lackey's closing counts ("Counted ...").
  size_t end_of_pid = text.find("== ");
  std::string_view said = end_of_pid == std::string_view::npos ? std::string_view{} : text.substr(end_of_pid + 3);
  if (said.substr(0, 8) == "Command:") {
    past_banner_ = true;
    return;
  }
  if (said.substr(0, 8) == "Counted ") in_summary_ = true;
  if (!past_banner_ || in_summary_ || said.empty()) return;
  messages_.emplace_back(text);
  if (messages_.size() > kKeptMessages) messages_.pop_front();
}

std::string LackeyTraceReader::recent_messages() const {
  std::string all;
  for (const auto& m : messages_) all += m + "\n";
  return all;
}

}  // namespace dmo

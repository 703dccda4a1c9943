#include "dmo/plan/problem_file.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <sstream>

#include "dmo/error.h"
#include "dmo/plan/alias_groups.h"

namespace dmo {

namespace {

using Json = nlohmann::json;

// Reads the fields of one JSON object, naming it (and the file) in errors.
class Fields {
 public:
  Fields(const Json& object, std::string where, const std::string& source,
         std::initializer_list<const char*> known)
      : object_(object), where_(std::move(where)), source_(source) {
    if (!object.is_object()) fail("is not a JSON object");
    for (const auto& [key, value] : object.items()) {
      bool ok = false;
      for (const char* k : known) ok = ok || key == k;
      if (!ok) fail(fmt::format("has unknown field \"{}\"", key));
    }
  }

  int64_t integer(const char* key) const {
    if (!object_.contains(key)) fail(fmt::format("has no \"{}\"", key));
    return integer_value(key);
  }
  std::optional<int64_t> optional_integer(const char* key) const {
    if (!object_.contains(key)) return std::nullopt;
    return integer_value(key);
  }
  const Json* optional_array(const char* key) const {
    if (!object_.contains(key)) return nullptr;
    if (!object_.at(key).is_array()) fail(fmt::format("\"{}\" is not an array", key));
    return &object_.at(key);
  }
  [[noreturn]] void fail(const std::string& problem) const {
    throw Error(fmt::format("{}: {} {}", source_, where_, problem));
  }

 private:
  int64_t integer_value(const char* key) const {
    const Json& value = object_.at(key);
    if (!value.is_number_integer()) fail(fmt::format("\"{}\" is not an integer", key));
    if (value.is_number_unsigned() && value.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
      fail(fmt::format("\"{}\" is too large", key));
    }
    return value.get<int64_t>();
  }

  const Json& object_;
  std::string where_;
  const std::string& source_;
};

bool power_of_two(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

int32_t index_in(const Fields& f, const char* key, int64_t count, const char* what) {
  const int64_t v = f.integer(key);
  if (v < 0 || v >= count) f.fail(fmt::format("\"{}\" {} is not a {} index (0..{})", key, v, what, count - 1));
  return static_cast<int32_t>(v);
}

}  // namespace

MemoryProblem parse_problem_json(const std::string& text, const std::string& source) {
  Json root;
  try {
    root = Json::parse(text);
  } catch (const Json::parse_error& e) {
    std::string why = e.what();
    for (char& c : why) c = c == '\n' || c == '\r' ? ' ' : c;  // one line
    throw Error(fmt::format("{}: not a JSON problem file ({})", source, why));
  }
  Fields top(root, "the problem", source, {"op_count", "buffers", "aliases", "overlaps"});
  MemoryProblem problem;
  const int64_t op_count = top.integer("op_count");
  if (op_count < 0 || op_count > INT32_MAX) top.fail(fmt::format("has op_count {} out of range", op_count));
  problem.op_count = static_cast<int32_t>(op_count);

  const Json* buffers = top.optional_array("buffers");
  if (!buffers) top.fail("has no \"buffers\"");
  const auto n = static_cast<int64_t>(buffers->size());
  problem.buffers.resize(static_cast<size_t>(n));
  std::vector<char> seen(static_cast<size_t>(n), 0);
  for (size_t i = 0; i < buffers->size(); ++i) {
    Fields f((*buffers)[i], fmt::format("buffer entry {}", i), source,
             {"id", "size", "first_use", "last_use", "tensor", "alignment", "fixed_offset"});
    const int32_t id = index_in(f, "id", n, "buffer");
    Fields b((*buffers)[i], fmt::format("buffer {}", id), source,
             {"id", "size", "first_use", "last_use", "tensor", "alignment", "fixed_offset"});
    if (seen[static_cast<size_t>(id)]) b.fail("is listed twice");
    seen[static_cast<size_t>(id)] = 1;
    BufferRequest& r = problem.buffers[static_cast<size_t>(id)];
    r.size = b.integer("size");
    if (r.size < 0) b.fail(fmt::format("has negative size {}", r.size));
    if (r.size > kMaxArenaBytes) b.fail(fmt::format("has size {}, above the {}-byte limit", r.size, kMaxArenaBytes));
    const int64_t first = b.integer("first_use"), last = b.integer("last_use");
    if (first < kUninitialised) b.fail(fmt::format("has first_use {} below {}", first, kUninitialised));
    if (first > last) b.fail(fmt::format("has first_use {} after last_use {}", first, last));
    if (last >= op_count && last >= 0) b.fail(fmt::format("has last_use {} beyond the last op {}", last, op_count - 1));
    r.lifetime = {static_cast<int32_t>(first), static_cast<int32_t>(last)};
    const int64_t tensor = b.optional_integer("tensor").value_or(id);
    // -1: no tensor (a kernel's scratch buffer).
    if (tensor < kNoTensor || tensor > INT32_MAX) b.fail(fmt::format("has tensor {} out of range", tensor));
    r.tensor = static_cast<int32_t>(tensor);
    r.alignment = b.optional_integer("alignment").value_or(0);
    if (b.optional_integer("alignment") && !power_of_two(r.alignment)) {
      b.fail(fmt::format("has alignment {}, not a power of two", r.alignment));
    }
    r.fixed_offset = b.optional_integer("fixed_offset");
    if (r.fixed_offset && *r.fixed_offset < 0) b.fail(fmt::format("has negative fixed_offset {}", *r.fixed_offset));
    if (r.fixed_offset && *r.fixed_offset > kMaxArenaBytes - r.size) {
      b.fail(fmt::format("has fixed_offset {}: it would end beyond the {}-byte limit", *r.fixed_offset, kMaxArenaBytes));
    }
    if (r.fixed_offset && r.alignment > 0 && *r.fixed_offset % r.alignment != 0) {
      b.fail(fmt::format("has fixed_offset {}, not a multiple of its alignment {}", *r.fixed_offset, r.alignment));
    }
  }

  if (const Json* aliases = top.optional_array("aliases")) {
    for (size_t i = 0; i < aliases->size(); ++i) {
      Fields a((*aliases)[i], fmt::format("alias {}", i), source, {"buffer", "base", "offset"});
      BufferAlias alias{index_in(a, "buffer", n, "buffer"), index_in(a, "base", n, "buffer"), a.integer("offset")};
      const BufferRequest& aliased = problem.buffers[static_cast<size_t>(alias.buffer)];
      const BufferRequest& base = problem.buffers[static_cast<size_t>(alias.base)];
      if (alias.offset < 0 || alias.offset > base.size - aliased.size) {
        a.fail(fmt::format("has offset {}: buffer {} ({} bytes) must lie inside buffer {} ({} bytes)", alias.offset,
                           alias.buffer, aliased.size, alias.base, base.size));
      }
      const int64_t own = aliased.alignment;
      if (own > 0 && alias.offset % own != 0) {
        a.fail(fmt::format("has offset {}, not a multiple of buffer {}'s alignment {}", alias.offset, alias.buffer, own));
      }
      problem.aliases.push_back(alias);
    }
  }
  if (const Json* overlaps = top.optional_array("overlaps")) {
    for (size_t i = 0; i < overlaps->size(); ++i) {
      Fields o((*overlaps)[i], fmt::format("overlap pair {}", i), source,
               {"op", "output_buffer", "input_buffer", "safe_overlap", "safe_overlap_descending"});
      OverlapPair pair;
      pair.op = index_in(o, "op", op_count, "op");
      pair.output_buffer = index_in(o, "output_buffer", n, "buffer");
      pair.input_buffer = index_in(o, "input_buffer", n, "buffer");
      if (pair.output_buffer == pair.input_buffer) o.fail("pairs a buffer with itself");
      pair.safe_overlap = o.integer("safe_overlap");
      pair.safe_overlap_descending = o.optional_integer("safe_overlap_descending").value_or(0);
      if (pair.safe_overlap < 0 || pair.safe_overlap_descending < 0) o.fail("has a negative safe overlap");
      problem.overlaps.push_back(pair);
    }
  }
  try {
    AliasGroups groups(problem);
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {}", source, e.what()));
  }
  return problem;
}

MemoryProblem read_problem_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw Error(fmt::format("{}: is a directory, not a problem file", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot open the problem file", path));
  std::ostringstream text;
  text << in.rdbuf();
  return parse_problem_json(text.str(), path);
}

std::string problem_json(const MemoryProblem& problem) {
  Json buffers = Json::array();
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    const BufferRequest& b = problem.buffers[i];
    Json entry = {{"id", i}, {"tensor", b.tensor}, {"size", b.size},
                  {"first_use", b.lifetime.first}, {"last_use", b.lifetime.last}};
    if (b.alignment > 0) entry["alignment"] = b.alignment;
    if (b.fixed_offset) entry["fixed_offset"] = *b.fixed_offset;
    buffers.push_back(std::move(entry));
  }
  Json aliases = Json::array();
  for (const BufferAlias& a : problem.aliases) {
    aliases.push_back({{"buffer", a.buffer}, {"base", a.base}, {"offset", a.offset}});
  }
  Json overlaps = Json::array();
  for (const OverlapPair& p : problem.overlaps) {
    overlaps.push_back({{"op", p.op}, {"output_buffer", p.output_buffer}, {"input_buffer", p.input_buffer},
                        {"safe_overlap", p.safe_overlap}, {"safe_overlap_descending", p.safe_overlap_descending}});
  }
  Json root = {{"op_count", problem.op_count}, {"buffers", buffers}, {"aliases", aliases}, {"overlaps", overlaps}};
  return root.dump(2) + "\n";
}

}  // namespace dmo

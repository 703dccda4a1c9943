#include "dmo/codegen/write_project.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <system_error>

#include <unistd.h>

#include "dmo/codegen/device_budget.h"
#include "dmo/codegen/kernel_headers.h"
#include "dmo/codegen/model_source.h"
#include "dmo/codegen/project_files.h"
#include "dmo/error.h"

namespace dmo {

namespace {

namespace fs = std::filesystem;

void write_text(const fs::path& path, std::string_view text) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  std::ofstream out(path, std::ios::binary);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  if (ec || !out) throw Error(fmt::format("cannot write {}", path.string()));
}

// A directory removed on destruction unless released.
class TemporaryDirectory {
 public:
  explicit TemporaryDirectory(fs::path path) : path_(std::move(path)) {}
  ~TemporaryDirectory() {
    std::error_code ec;
    if (!released_) fs::remove_all(path_, ec);
  }
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
  const fs::path& path() const { return path_; }
  void release() { released_ = true; }

 private:
  fs::path path_;
  bool released_ = false;
};

}  // namespace

void require_empty_directory(const std::string& directory) {
  std::error_code ec;
  const fs::path path(directory);
  if (!fs::exists(path, ec)) return;
  if (!fs::is_directory(path, ec)) throw Error(fmt::format("{} exists and is not a directory", directory));
  if (!fs::is_empty(path, ec) || ec) throw Error(fmt::format("{} exists and is not empty", directory));
}

void write_codegen_project(const Graph& graph, const Interpreter& interpreter, const std::string& directory,
                           const CodegenOptions& options) {
  require_empty_directory(directory);
  // Everything is generated, and the board's budget checked, before
  // anything is written.
  int64_t weight_bytes = 0;
  std::string model = model_source(graph, interpreter, &weight_bytes);
  DeviceLayout layout;
  if (const std::optional<DeviceBoard> board = device_board(options.target)) {
    layout = device_layout(*board, weight_bytes, interpreter.placement().arena_size);
  }
  std::map<std::string, std::string> files = project_files(options.target, options.seed, layout.constants_apart);
  files["model.h"] = model_header();
  files["model.cc"] = std::move(model);

  const fs::path target = fs::absolute(fs::path(directory)).lexically_normal();
  const fs::path parent = target.has_filename() ? target.parent_path() : target.parent_path().parent_path();
  const std::string name = target.has_filename() ? target.filename().string() : target.parent_path().filename().string();
  std::error_code ec;
  if (!fs::is_directory(parent, ec)) throw Error(fmt::format("{}: no directory {}", directory, parent.string()));
  TemporaryDirectory temporary(parent / fmt::format(".{}.dmo-codegen-{}", name, ::getpid()));
  fs::remove_all(temporary.path(), ec);
  if (!fs::create_directory(temporary.path(), ec) || ec) {
    throw Error(fmt::format("cannot create a directory beside {}", directory));
  }
  for (const auto& [file, text] : files) write_text(temporary.path() / file, text);
  for (const EmbeddedHeader& header : device_kernel_headers()) {
    write_text(temporary.path() / "include" / std::string(header.path), header.text);
  }
  // An empty directory in the way is replaced; rename cannot replace it.
  if (fs::exists(target, ec)) fs::remove(target, ec);
  fs::rename(temporary.path(), target, ec);
  if (ec) throw Error(fmt::format("cannot rename the project into {}: {}", directory, ec.message()));
  temporary.release();
}

}  // namespace dmo

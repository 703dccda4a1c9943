#include "output_file.h"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "dmo/error.h"

namespace dmo::cli {

namespace fs = std::filesystem;

OutputFile::OutputFile(std::string path) : path_(std::move(path)) {
  if (path_.empty()) throw Error("an output path is empty");
  fs::path target(path_);
  std::error_code ec;
  if (fs::is_directory(target, ec)) throw Error(fmt::format("{}: is a directory, not a file", path_));
  in_place_ = fs::exists(target, ec) && !fs::is_regular_file(target, ec);
  // Same directory as the target, so the rename stays on one file system.
  temporary_ = (target.parent_path() / fmt::format(".{}.dmo-tmp-{}", target.filename().string(), ::getpid())).string();
}

OutputFile::~OutputFile() {
  if (written_ && !committed_ && !in_place_) {
    std::error_code ec;
    fs::remove(temporary_, ec);
  }
}

void OutputFile::write(std::span<const uint8_t> bytes) {
  written_ = true;
  std::ofstream out(in_place_ ? path_ : temporary_, std::ios::binary | std::ios::trunc);
  if (!out) throw Error(fmt::format("{}: cannot create the file (its directory must exist and be writable)", path_));
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) throw Error(fmt::format("{}: write failed", path_));
}

void OutputFile::write(const std::string& text) {
  write(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

void OutputFile::commit() {
  if (!written_) throw Error(fmt::format("internal: {} committed before it was written", path_));
  if (in_place_) {
    committed_ = true;
    return;
  }
  std::error_code ec;
  fs::rename(temporary_, path_, ec);
  if (ec) throw Error(fmt::format("{}: cannot move the finished file into place: {}", path_, ec.message()));
  committed_ = true;
}

}  // namespace dmo::cli

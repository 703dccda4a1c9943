// A file the command line writes whole or not at all: the bytes go to a
// temporary name in the same directory, renamed over the target only on
// commit(); a file not committed is removed, so an error never leaves a
// half-written model behind.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace dmo::cli {

class OutputFile {
 public:
  explicit OutputFile(std::string path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // Writes the whole content to the temporary file; throws dmo::Error.
  void write(std::span<const uint8_t> bytes);
  void write(const std::string& text);
  // Moves the temporary file to the path; throws dmo::Error.
  void commit();

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::string temporary_;
  bool written_ = false;
  bool committed_ = false;
  // The target exists and is no regular file (/dev/stdout, a pipe): written
  // in place, since renaming over it would replace the device itself.
  bool in_place_ = false;
};

}  // namespace dmo::cli

// Errors dmo reports to its user: bad input files, unsupported models, bad
// arguments. The command line turns them into one message and exit status 2.
#pragma once

#include <stdexcept>
#include <string>

namespace dmo {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace dmo

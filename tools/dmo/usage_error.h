// Usage errors of the command line as the one line dmo prints after
// "dmo: error: ": the command they concern, the problem, and the offending
// arguments in the order they were given.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

namespace dmo::cli {

// The subcommand the arguments name first (argv[0] excluded), if any.
std::optional<std::string> given_command(const CLI::App& app, const std::vector<std::string>& args);

// A message when the first argument is not a command (or none is given),
// checked before parsing so the user learns the command names.
std::optional<std::string> missing_command_message(const CLI::App& app, const std::vector<std::string>& args);

// CLI11's parse error as one line, prefixed with the command it concerns.
std::string parse_error_message(const CLI::App& app, const CLI::ParseError& error,
                                const std::vector<std::string>& args);

}  // namespace dmo::cli

#include "usage_error.h"

#include <fmt/format.h>

#include <map>

namespace dmo::cli {

namespace {

std::string command_list(const CLI::App& app) {
  std::string names;
  for (const CLI::App* sub : app.get_subcommands({})) names += (names.empty() ? "" : ", ") + sub->get_name();
  return names;
}

// The arguments CLI11 left over, in the order the user gave them (CLI11's
// own message lists them backwards).
std::vector<std::string> leftovers_in_given_order(const CLI::App& app, const std::vector<std::string>& args) {
  std::map<std::string, int> unused;
  for (const std::string& a : app.remaining(true)) ++unused[a];
  std::vector<std::string> ordered;
  for (const std::string& a : args) {
    auto it = unused.find(a);
    if (it == unused.end() || it->second == 0) continue;
    --it->second;
    ordered.push_back(a);
  }
  return ordered;
}

// Position of the first argument naming `option` ("--plan" or "--plan=F").
size_t position_of(const std::string& option, const std::vector<std::string>& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == option || args[i].starts_with(option + "=")) return i;
  }
  return args.size();
}

// CLI11 says "A excludes B" in its own order; name the two as given.
std::optional<std::string> conflict_message(const std::string& what, const std::vector<std::string>& args) {
  const std::string separator = " excludes ";
  const size_t at = what.find(separator);
  if (at == std::string::npos) return std::nullopt;
  std::string first = what.substr(0, at), second = what.substr(at + separator.size());
  if (position_of(second, args) < position_of(first, args)) std::swap(first, second);
  return fmt::format("{} and {} cannot be given together", first, second);
}

std::string one_line(std::string text) {
  for (char& c : text) {
    if (c == '\n') c = ' ';
  }
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

}  // namespace

std::optional<std::string> given_command(const CLI::App& app, const std::vector<std::string>& args) {
  for (const std::string& a : args) {
    if (a == "--") break;
    for (const CLI::App* sub : app.get_subcommands({})) {
      if (sub->get_name() == a) return a;
    }
  }
  return std::nullopt;
}

std::optional<std::string> missing_command_message(const CLI::App& app, const std::vector<std::string>& args) {
  if (args.empty()) return fmt::format("give a command: {} (dmo --help describes them)", command_list(app));
  const std::string& first = args.front();
  if (first.starts_with("-")) return std::nullopt;  // --help, or an option CLI11 reports
  if (given_command(app, {first})) return std::nullopt;
  return fmt::format("'{}' is not a dmo command; commands: {}", first, command_list(app));
}

std::string parse_error_message(const CLI::App& app, const CLI::ParseError& error,
                                const std::vector<std::string>& args) {
  const std::optional<std::string> command = given_command(app, args);
  const std::string help = command ? fmt::format("dmo {} --help", *command) : std::string("dmo --help");
  std::string problem;
  if (dynamic_cast<const CLI::ExtrasError*>(&error) != nullptr) {
    const std::vector<std::string> extras = leftovers_in_given_order(app, args);
    problem = fmt::format("unexpected argument{}: {}", extras.size() == 1 ? "" : "s", fmt::join(extras, " "));
  } else if (dynamic_cast<const CLI::ExcludesError*>(&error) != nullptr) {
    problem = conflict_message(error.what(), args).value_or(one_line(error.what()));
  } else {
    problem = one_line(error.what());
  }
  return fmt::format("{}{} (see {})", command ? *command + ": " : "", problem, help);
}

}  // namespace dmo::cli

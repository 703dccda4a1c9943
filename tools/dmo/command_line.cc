// The dmo command line: parse arguments, call the library, print.
// Exit status: 0 success, 1 a check failed, 2 bad input or usage, always
// with one line "dmo: error: ..." on stderr.
#include "command_line.h"

#include <iostream>
#include <new>
#include <regex>
#include <string>
#include <vector>

#include "commands.h"
#include "dmo/error.h"
#include "progress.h"
#include "usage_error.h"

namespace {

// The model the parsed command was given (its MODEL argument or --model).
std::string model_argument(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands()) {
    for (const char* name : {"model", "--model"}) {
      const CLI::Option* option = sub->get_option_no_throw(name);
      if (option != nullptr && option->count() > 0) return option->results().front();
    }
  }
  return {};
}

// The kernels report "op N (KIND): ..." without knowing the file; the user
// needs to know which model that op belongs to.
std::string with_model_name(const CLI::App& app, const std::string& message) {
  static const std::regex op_message(R"(^op \d+ \(.*)");
  const std::string model = model_argument(app);
  if (model.empty() || !std::regex_match(message, op_message)) return message;
  return model + ": " + message;
}

int report(const std::string& message) {
  std::cerr << "dmo: error: " << message << std::endl;
  return 2;
}

int run(CLI::App& app, const std::vector<std::string>& args) {
  app.require_subcommand(1);
  std::vector<dmo::cli::Command> commands = {
      dmo::cli::add_info_command(app), dmo::cli::add_plan_command(app), dmo::cli::add_run_command(app),
      dmo::cli::add_overlap_command(app), dmo::cli::add_verify_command(app),
      dmo::cli::add_export_command(app), dmo::cli::add_zoo_command(app),
      dmo::cli::add_trace_command(app), dmo::cli::add_solve_command(app),
      dmo::cli::add_fit_command(app), dmo::cli::add_codegen_command(app)};
  bool progress = false;
  app.add_flag("--progress", progress,
               "report progress of long steps on stderr even when it is not a terminal (on a terminal it always is)");
  // --progress may also follow the command: `dmo plan MODEL --progress`.
  for (CLI::App* sub : app.get_subcommands({})) sub->fallthrough();
  if (auto message = dmo::cli::missing_command_message(app, args)) return report(*message);
  try {
    // CLI11 takes the arguments last first.
    std::vector<std::string> reversed(args.rbegin(), args.rend());
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    // --help and --help-all are "parse errors" with exit code 0.
    if (e.get_exit_code() == 0) return app.exit(e);
    return report(dmo::cli::parse_error_message(app, e, args));
  }
  dmo::cli::configure_progress(progress);
  const auto& all = app.get_subcommands({});
  for (size_t i = 0; i < all.size(); ++i) {
    if (all[i]->parsed()) return commands[i]();
  }
  return 2;
}

}  // namespace

namespace dmo::cli {

int run_command_line(const std::vector<std::string>& args) {
  CLI::App app{"dmo: smallest safe tensor arena for TFLite models on micro-controllers"};
  app.name("dmo");
  try {
    return run(app, args);
  } catch (const dmo::Error& e) {
    return report(with_model_name(app, e.what()));
  } catch (const std::bad_alloc&) {
    return report("out of memory");
  } catch (const std::exception& e) {
    std::cerr << "dmo: internal error: " << e.what() << std::endl;
    return 2;
  }
}

}  // namespace dmo::cli

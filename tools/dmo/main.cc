// The dmo command line: parse arguments, call the library, print.
// Exit status: 0 success, 1 a check failed, 2 bad input or usage.
#include <cstdio>
#include <new>
#include <vector>

#include "commands.h"
#include "dmo/error.h"

namespace {

int run(int argc, char** argv) {
  CLI::App app{"dmo: smallest safe tensor arena for TFLite models on micro-controllers"};
  app.require_subcommand(1);
  std::vector<dmo::cli::Command> commands = {
      dmo::cli::add_info_command(app), dmo::cli::add_plan_command(app), dmo::cli::add_run_command(app),
      dmo::cli::add_overlap_command(app), dmo::cli::add_verify_command(app),
      dmo::cli::add_export_command(app), dmo::cli::add_zoo_command(app),
      dmo::cli::add_trace_command(app), dmo::cli::add_solve_command(app)};
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help is a "parse error" with exit code 0; real usage errors exit 2.
    return app.exit(e) == 0 ? 0 : 2;
  }
  const auto& all = app.get_subcommands({});
  for (size_t i = 0; i < all.size(); ++i) {
    if (all[i]->parsed()) return commands[i]();
  }
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const dmo::Error& e) {
    std::fprintf(stderr, "dmo: error: %s\n", e.what());
    return 2;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "dmo: error: out of memory\n");
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dmo: internal error: %s\n", e.what());
    return 2;
  }
}

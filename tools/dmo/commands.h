// Subcommands of the dmo command line. Each adds itself to the app and
// returns what to run when it is the one parsed (its exit status).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace dmo::cli {

using Command = std::function<int()>;

Command add_info_command(CLI::App& app);
Command add_plan_command(CLI::App& app);
Command add_run_command(CLI::App& app);
Command add_overlap_command(CLI::App& app);
Command add_verify_command(CLI::App& app);
Command add_trace_command(CLI::App& app);
Command add_export_command(CLI::App& app);
Command add_zoo_command(CLI::App& app);
Command add_solve_command(CLI::App& app);
Command add_fit_command(CLI::App& app);
Command add_codegen_command(CLI::App& app);

}  // namespace dmo::cli

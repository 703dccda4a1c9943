#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "commands.h"
#include "dmo/plan/dmo_plan_choice.h"
#include "dmo/plan/plan_validator.h"
#include "dmo/plan/problem_file.h"
#include "dmo/plan/tflm_greedy_planner.h"

namespace dmo::cli {

Command add_solve_command(CLI::App& app) {
  struct Options {
    std::string file;
    std::string planner = "dmo";
    int64_t alignment = 16;
    bool json = false;
  };
  auto options = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("solve", "Plan a problem file (see `dmo plan --dump-problem`), validate, print the arena");
  cmd->add_option("file", options->file, "a JSON problem file")->required();
  cmd->add_option("--planner", options->planner,
                  "dmo (default: dmo's planner with the file's overlap pairs, as `dmo plan` reports it) or "
                  "tflm_greedy (TFLM's greedy planner, which ignores overlap pairs)")
      ->check(CLI::IsMember({"dmo", "tflm_greedy"}));
  cmd->add_option("--alignment", options->alignment,
                  "bytes every offset is a multiple of unless its buffer names its own (default 16)")
      ->check(CLI::IsMember({1, 2, 4, 8, 16, 32, 64}));
  cmd->add_flag("--json", options->json, "print one JSON object with the offsets");
  return [options] {
    MemoryProblem problem = read_problem_file(options->file);
    Plan plan = options->planner == "tflm_greedy" ? plan_tflm_greedy(problem, options->alignment)
                                                  : choose_dmo_plan(problem, options->alignment).dmo;
    std::vector<std::string> errors = validate_plan(problem, plan, options->alignment);
    if (!errors.empty()) {
      throw std::logic_error(fmt::format("{}: {} plan is invalid: {}", options->file, plan.planner, errors.front()));
    }
    if (options->json) {
      nlohmann::json out = {{"problem", options->file}, {"planner", plan.planner},
                            {"alignment", options->alignment}, {"arena_bytes", plan.arena_size},
                            {"offsets", plan.offsets}, {"descending_ops", plan.descending_ops}};
      std::cout << out.dump(2) << '\n';
    } else {
      std::cout << fmt::format("{}: {} buffers, {} arena bytes ({})\n", options->file, problem.buffers.size(),
                               plan.arena_size, plan.planner);
    }
    return 0;
  };
}

}  // namespace dmo::cli

#include "reorder_option.h"

namespace dmo::cli {

void add_reorder_option(CLI::App* command, std::string& value) {
  command->add_option("--reorder", value,
                      "execution order of subgraph 0's ops: 'auto' runs them in the topological order whose dmo plan "
                      "is smallest (exact search on small state spaces, a bounded beam above; file order kept when "
                      "no order is smaller; not with --split), 'none' (default) keeps file order")
      ->check(CLI::IsMember({"auto", "none"}));
}

ReorderRequest reorder_request(const std::string& value) {
  return value == "auto" ? ReorderRequest::kAuto : ReorderRequest::kNone;
}

}  // namespace dmo::cli

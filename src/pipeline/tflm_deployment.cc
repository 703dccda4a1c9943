#include "dmo/pipeline/tflm_deployment.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

#include "dmo/error.h"
#include "dmo/pipeline/kernel_scratch_buffers.h"
#include "dmo/plan/tflm_greedy_planner.h"
#include "dmo/plan/tflm_layout.h"

namespace dmo {

namespace {

// Words giving subgraph 0's tensors the offsets of `plan` (-1 for
// scratch buffers' and unplanned tensors), -1 for every other subgraph.
OfflinePlan words_for(const Graph& graph, const MemoryProblem& problem, const std::vector<int64_t>& offsets,
                      int64_t& planned) {
  OfflinePlan words;
  words.version = 0;
  words.subgraph_count = static_cast<int32_t>(graph.subgraphs.size());
  words.offsets.assign(graph.total_tensor_count(), -1);
  planned = 0;
  for (size_t b = 0; b < problem.buffers.size(); ++b) {
    const int32_t t = problem.buffers[b].tensor;
    if (t == kNoTensor || offsets[b] < 0) continue;
    if (offsets[b] > std::numeric_limits<int32_t>::max()) {
      throw Error(fmt::format("{}: tensor {} is planned at offset {}, beyond TFLM's int32 offsets", graph.source, t,
                              offsets[b]));
    }
    words.offsets[static_cast<size_t>(t)] = static_cast<int32_t>(offsets[b]);  // subgraph 0's tensors come first
    ++planned;
  }
  return words;
}

}  // namespace

const char* deployed_plan_name(DeployedPlan plan) {
  switch (plan) {
    case DeployedPlan::kDmo: return "dmo";
    case DeployedPlan::kModelOfflinePlan: return "model";
    case DeployedPlan::kTflmGreedy: return "tflm_greedy";
    case DeployedPlan::kTflmOnline: return "tflm_online";
  }
  return "?";
}

namespace {

// The scratch buffers of a TFLM problem (buffers with no tensor): each
// costs TFLM a handle in its tail.
int64_t scratch_requests(const MemoryProblem& problem) {
  return std::count_if(problem.buffers.begin(), problem.buffers.end(),
                       [](const BufferRequest& b) { return b.tensor == kNoTensor; });
}

// TFLM's problem for each family the plan is for: the same tensors, the
// family's own scratch buffers.
struct FamilyProblems {
  const Graph& graph;
  std::vector<KernelFamily> families;
  std::vector<MemoryProblem> problems;
  std::vector<int64_t> without;  // TFLM's head for each as the model is

  FamilyProblems(const Graph& graph_in, const PlanResult& result) : graph(graph_in), families(result.families) {
    if (families.empty()) families = {KernelFamily::kTflmReference};
    if (families.size() == 1) {  // the plan's own TFLM problem is that family's
      problems = {result.tflm_problem};
      without = {result.tflm_greedy.arena_size};
      return;
    }
    for (KernelFamily family : families) {
      problems.push_back(tflm_problem_with_scratch(graph, kernel_scratch_buffers(graph, family)));
      without.push_back(plan_tflm_greedy(problems.back()).arena_size);
    }
  }

  // Each family's whole arena as the model is: the head without the
  // export, the tail with the file's own offline plan.
  std::vector<TflmArena> arenas_as_is() const {
    std::vector<TflmArena> out;
    for (size_t f = 0; f < families.size(); ++f) {
      out.push_back(tflm_arena(graph, families[f], without[f], scratch_requests(problems[f]), graph.offline_plan));
    }
    return out;
  }

  // Each family's head with `words` as the offline plan.
  std::vector<FamilyHead> heads(const OfflinePlan& words) const {
    std::vector<FamilyHead> out;
    for (size_t f = 0; f < families.size(); ++f) {
      const MemoryProblem& problem = problems[f];
      std::vector<int64_t> offsets(problem.buffers.size(), -1);
      for (size_t b = 0; b < offsets.size(); ++b) {
        const int32_t t = problem.buffers[b].tensor;
        if (t != kNoTensor && static_cast<size_t>(t) < words.offsets.size()) {
          offsets[b] = words.offsets[static_cast<size_t>(t)];
        }
      }
      const int64_t with = plan_tflm_with_offsets(problem, offsets).arena_size;
      out.push_back({families[f], without[f], with,
                     tflm_arena(graph, families[f], with, scratch_requests(problem), words)});
    }
    return out;
  }
};

int64_t largest_with(const std::vector<FamilyHead>& heads) {
  int64_t most = 0;
  for (const FamilyHead& h : heads) most = std::max(most, h.with);
  return most;
}

int64_t total_with(const std::vector<FamilyHead>& heads) {
  int64_t total = 0;
  for (const FamilyHead& h : heads) total += h.with;
  return total;
}

int64_t largest_without(const std::vector<FamilyHead>& heads) {
  int64_t most = 0;
  for (const FamilyHead& h : heads) most = std::max(most, h.without);
  return most;
}

// A candidate for the words to deploy.
struct Candidate {
  DeployedPlan plan;
  OfflinePlan words;
  int64_t tensors_planned = 0;
  std::vector<FamilyHead> heads;
};

// The plan TFLM needs the fewest bytes with (the largest head over the
// families, then their sum, so that no family pays for a tie), dmo's on
// ties, but the model's own offline plan over dmo's.
TflmDeployment smallest_deployment(const Graph& graph, const PlanResult& result, const FamilyProblems& families) {
  const MemoryProblem& tflm = result.tflm_problem;
  std::vector<Candidate> candidates;
  auto add = [&](DeployedPlan plan, OfflinePlan words, int64_t planned) {
    std::vector<FamilyHead> heads = families.heads(words);
    candidates.push_back({plan, std::move(words), planned, std::move(heads)});
  };
  int64_t planned = 0;
  if (graph.offline_plan) {
    for (size_t t = 0; t < graph.main().tensors.size() && t < graph.offline_plan->offsets.size(); ++t) {
      planned += graph.offline_plan->offsets[t] >= 0;
    }
    add(DeployedPlan::kModelOfflinePlan, *graph.offline_plan, planned);
  }
  OfflinePlan dmo_words = words_for(graph, tflm, tensor_offsets(tflm, result.dmo_ascending), planned);
  add(DeployedPlan::kDmo, std::move(dmo_words), planned);
  if (!graph.offline_plan) {
    OfflinePlan greedy = words_for(graph, tflm, tensor_offsets(tflm, result.tflm_greedy), planned);
    add(DeployedPlan::kTflmGreedy, std::move(greedy), planned);
    OfflinePlan online = words_for(graph, tflm, std::vector<int64_t>(tflm.buffers.size(), -1), planned);
    add(DeployedPlan::kTflmOnline, std::move(online), planned);
  }
  const Candidate* best = &candidates.front();
  auto cost = [](const Candidate& c) { return std::pair{largest_with(c.heads), total_with(c.heads)}; };
  for (const Candidate& c : candidates) {
    if (cost(c) < cost(*best)) best = &c;
  }
  const Candidate& dmo =
      *std::find_if(candidates.begin(), candidates.end(), [](const Candidate& c) { return c.plan == DeployedPlan::kDmo; });

  TflmDeployment d;
  d.plan = best->plan;
  d.words = best->words;
  d.tensors_planned = best->tensors_planned;
  d.heads = best->heads;
  d.arena_bytes = largest_with(d.heads);
  d.without_export_bytes = largest_without(d.heads);
  d.dmo_bytes = largest_with(dmo.heads);
  switch (d.plan) {
    case DeployedPlan::kDmo:
      d.reason = graph.offline_plan
                     ? fmt::format("dmo's plan replaces the model's own offline plan: TFLM needs {} bytes with it, "
                                   "{} with the model's plan",
                                   d.dmo_bytes, d.without_export_bytes)
                     : fmt::format("dmo's plan: TFLM needs {} bytes with it, {} with its own greedy plan", d.dmo_bytes,
                                   d.without_export_bytes);
      break;
    case DeployedPlan::kModelOfflinePlan:
      d.reason = fmt::format("kept the model's own offline plan: TFLM needs {} bytes with it, {} with dmo's plan",
                             d.arena_bytes, d.dmo_bytes);
      break;
    case DeployedPlan::kTflmGreedy:
    case DeployedPlan::kTflmOnline:
      d.reason = fmt::format("TFLM's {} instead of dmo's plan: TFLM needs {} bytes with dmo's plan, {} with its own{}",
                             d.plan == DeployedPlan::kTflmGreedy ? "greedy offsets" : "own planning (every offset -1)",
                             d.dmo_bytes, d.arena_bytes,
                             d.dmo_bytes == d.arena_bytes ? " (and more with dmo's plan under another family)" : "");
      break;
  }
  return d;
}

}  // namespace

std::vector<TflmArena> tflm_arenas(const Graph& graph, const PlanResult& result) {
  return FamilyProblems(graph, result).arenas_as_is();
}

std::optional<int64_t> largest_tflm_arena(const TflmDeployment& deployment) {
  std::optional<int64_t> most;
  for (const FamilyHead& h : deployment.heads) {
    const std::optional<int64_t> total = h.arena.total_bytes();
    if (!total) return std::nullopt;
    most = std::max(most.value_or(0), *total);
  }
  return most;
}

std::vector<FamilyHead> heads_worse_with_export(const TflmDeployment& deployment) {
  std::vector<FamilyHead> worse;
  for (const FamilyHead& h : deployment.heads) {
    if (h.with > h.without) worse.push_back(h);
  }
  return worse;
}

std::vector<int32_t> inputs_overwritten_by(const Graph& graph, const MemoryProblem& tflm_problem,
                                          const OfflinePlan& words) {
  const Subgraph& sg = graph.main();
  std::vector<int64_t> offsets(tflm_problem.buffers.size(), -1);
  for (size_t b = 0; b < offsets.size(); ++b) {
    const int32_t t = tflm_problem.buffers[b].tensor;
    if (t != kNoTensor && static_cast<size_t>(t) < words.offsets.size()) offsets[b] = words.offsets[static_cast<size_t>(t)];
  }
  const Plan layout = plan_tflm_with_offsets(tflm_problem, offsets);
  std::vector<int32_t> overwritten;
  for (size_t b = 0; b < tflm_problem.buffers.size(); ++b) {
    const BufferRequest& input = tflm_problem.buffers[b];
    if (input.tensor == kNoTensor || input.size == 0 ||
        std::find(sg.inputs.begin(), sg.inputs.end(), input.tensor) == sg.inputs.end()) {
      continue;
    }
    const int64_t low = layout.offsets[b], high = low + input.size;
    for (size_t other = 0; other < tflm_problem.buffers.size(); ++other) {
      const BufferRequest& o = tflm_problem.buffers[other];
      if (other == b || o.size == 0 || o.tensor == input.tensor) continue;
      if (layout.offsets[other] < high && low < layout.offsets[other] + o.size) {
        overwritten.push_back(input.tensor);
        break;
      }
    }
  }
  return overwritten;
}

namespace {

const char* family_description(KernelFamily family) {
  switch (family) {
    case KernelFamily::kCmsisNn: return "TFLM's CMSIS-NN kernels built without ARM_MATH_DSP (portable C)";
    case KernelFamily::kCmsisNnDsp: return "TFLM's CMSIS-NN kernels built with ARM_MATH_DSP (Cortex-M4/M7/M33)";
    default: return "TFLM's reference kernels";
  }
}

}  // namespace

std::string deployment_safe_for(const TflmDeployment& deployment) {
  switch (deployment.plan) {
    case DeployedPlan::kDmo: {
      std::string kernels;
      const size_t n = deployment.families.size();
      for (size_t i = 0; i < n; ++i) {
        kernels += i == 0 ? "" : i + 1 == n ? " and " : ", ";
        kernels += family_description(deployment.families[i]);
      }
      std::string others;
      for (KernelFamily f : kKernelFamilies) {
        if (std::find(deployment.families.begin(), deployment.families.end(), f) != deployment.families.end()) continue;
        others += fmt::format("{}{}", others.empty() ? "" : ", ", kernel_family_name(f));
      }
      return fmt::format("{}, every op walking ascending ({})", kernels,
                         others.empty() ? "each op's safe overlap is the least over these kernels"
                                        : fmt::format("not {} or other optimised kernels, whose access orders differ",
                                                      others));
    }
    case DeployedPlan::kModelOfflinePlan:
      return "whatever the model's own offline plan was made for (unchanged)";
    case DeployedPlan::kTflmGreedy:
    case DeployedPlan::kTflmOnline:
      return "any kernels (no two tensors live at the same time share bytes)";
  }
  return "?";
}

std::string graph_inputs_statement(const Graph& graph, const TflmDeployment& deployment) {
  if (deployment.overwritten_inputs.empty()) return "graph inputs: intact during and after Invoke";
  std::string names;
  for (int32_t t : deployment.overwritten_inputs) {
    const std::string& name = graph.main().tensors[static_cast<size_t>(t)].name;
    names += fmt::format("{}tensor {}{}", names.empty() ? "" : ", ", t, name.empty() ? "" : " '" + name + "'");
  }
  return fmt::format("graph inputs: overwritten during Invoke ({}); write them again before each Invoke, or "
                     "export with --preserve-inputs",
                     names);
}

TflmDeployment choose_tflm_deployment(const Graph& graph, const PlanResult& result, bool preserve_inputs) {
  const FamilyProblems families(graph, result);
  TflmDeployment d = smallest_deployment(graph, result, families);
  d.families = result.families;
  d.overwritten_inputs = inputs_overwritten_by(graph, result.tflm_problem, d.words);
  if (!preserve_inputs || d.overwritten_inputs.empty() || d.plan == DeployedPlan::kDmo) return d;
  // Asked to keep the inputs: dmo's plan (made with graph inputs live to
  // the end) instead of a smaller one that overwrites them, if it keeps them.
  const std::vector<int64_t> dmo_offsets = tensor_offsets(result.tflm_problem, result.dmo_ascending);
  TflmDeployment kept = d;
  kept.words = words_for(graph, result.tflm_problem, dmo_offsets, kept.tensors_planned);
  kept.overwritten_inputs = inputs_overwritten_by(graph, result.tflm_problem, kept.words);
  if (!kept.overwritten_inputs.empty()) return d;
  kept.plan = DeployedPlan::kDmo;
  kept.heads = families.heads(kept.words);
  kept.arena_bytes = largest_with(kept.heads);
  kept.reason = fmt::format("dmo's plan, which keeps the graph inputs intact as asked: TFLM needs {} bytes with it, "
                            "{} with the smaller plan that overwrites them",
                            kept.arena_bytes, d.arena_bytes);
  return kept;
}

}  // namespace dmo

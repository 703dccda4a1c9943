// Proof by execution of dmo's own plans: for every model the runtime can
// run, dmo's plan (both overlap methods) passes the validator, gives
// bit-identical outputs to an unshared run and the whole-arena checking
// policy finds no clobber. And verify can fail: on every runnable model
// with golden data, dmo's plan with one tensor moved one byte over a tensor
// live at the same time, or one op's output one element past its safe
// overlap, is reported naming both tensors.
#include <gtest/gtest.h>

#include <cstdio>
#include <optional>
#include <string>

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "dmo/error.h"
#include "dmo/pipeline/verified_plan.h"
#include "dmo/report/plan_report.h"
#include "dmo/runtime/input_pattern.h"
#include "dmo/runtime/interpreter.h"
#include "dmo/tflite/reader.h"
#include "dmo/zoo/zoo.h"
#include "test_support.h"

namespace dmo {
namespace {

// litert_add_shared_tensors: op 1 reads tensor 0, which no op writes.
bool expected_unwritten(const Graph& graph, const UnwrittenRead& read) {
  return graph.source.ends_with("litert_add_shared_tensors.tflite") && read.tensor == 0 && read.op == 1;
}

// Verifies dmo's plans of `graph`; the runtime's refusal when dmo cannot run
// some op (no kernel, or no kernel for its types), nullopt when it ran.
std::optional<std::string> verify_dmo_plans(const Graph& graph) {
  // Each method with its own input pattern: two runs cover both plans.
  for (auto [method, seed] : {std::pair{OverlapMethod::kAlgorithmic, 1u}, std::pair{OverlapMethod::kAnalytic, 2u}}) {
    PlanResult report = plan_model(graph, {.method = method});
    TensorPlacement placement = placement_from_plan(graph.main(), report.problem, report.dmo);
    VerifyResult result;
    try {
      result = verify_plan(graph, placement, pattern_input(graph.main(), seed));
    } catch (const Error& e) {
      const std::string what = e.what();
      if (test::missing_kernel(what) || what.find("not supported") != std::string::npos) return what;
      throw;
    }
    // A model reading a tensor no op writes fails for that alone.
    result.unwritten_reads.erase(std::remove_if(result.unwritten_reads.begin(), result.unwritten_reads.end(),
                                                [&](const UnwrittenRead& r) { return expected_unwritten(graph, r); }),
                                 result.unwritten_reads.end());
    EXPECT_TRUE(result.ok()) << overlap_method_name(method) << " seed " << seed << ": " << result.describe(graph);
  }
  return std::nullopt;
}

TEST(DmoPlanVerify, EverySharedModelTheRuntimeSupports) {
  DMO_REQUIRE_SHARED(shared);
  int verified = 0;
  std::vector<std::string> unsupported_types;
  for (const std::string& file : test::tflite_files_in(shared + "/models")) {
    SCOPED_TRACE(file);
    const std::string model = test::file_stem(file);
    std::optional<std::string> refusal = verify_dmo_plans(read_tflite_file(file));
    if (!refusal) {
      ++verified;
    } else if (auto missing = test::missing_kernel(*refusal)) {
      std::printf("[ skipped  ] %s\n", test::describe_skip(model, *missing).c_str());
    } else {
      unsupported_types.push_back(model);
    }
  }
  EXPECT_EQ(verified, 41);
  // A float model with int8 weights (hybrid): dmo's conv has no such variant.
  EXPECT_EQ(unsupported_types, std::vector<std::string>{"tiny_kws_ref_model_float32"});
}

TEST(DmoPlanVerify, ZooModels) {
  for (const char* name : {"mobilenet_v1_0.25_128_int8", "mobilenet_v1_0.25_128_uint8",
                           "mobilenet_v1_0.25_96_float32", "mobilenet_v2_0.35_96_int8",
                           "mobilenet_v2_0.35_96_uint8", "mobilenet_v2_0.5_128_float32"}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(verify_dmo_plans(build_zoo_model(name)), std::nullopt);
  }
}

// A shared model with golden data that dmo can run, with dmo's plan.
struct PlannedModel {
  std::string name;
  Graph graph;
  PlanResult plan;
  TensorPlacement placement;
};

std::vector<PlannedModel> runnable_golden_models(const std::string& shared) {
  std::set<std::string> names;
  for (const test::GoldenCase& c : test::golden_cases()) names.insert(c.model);
  std::vector<PlannedModel> models;
  for (const std::string& name : names) {
    Graph graph = read_tflite_file(shared + "/models/" + name + ".tflite");
    PlanResult plan = plan_model(graph);
    TensorPlacement placement = dmo_placement(graph, plan);
    try {
      Interpreter interpreter(graph, placement);
      for (size_t op = 0; op < graph.main().ops.size(); ++op) interpreter.prepared(static_cast<int32_t>(op));
    } catch (const Error& e) {
      if (!test::missing_kernel(e.what()) && std::string(e.what()).find("not supported") == std::string::npos) throw;
      std::printf("[ skipped  ] %s: %s\n", name.c_str(), e.what());
      continue;
    }
    models.push_back({name, std::move(graph), std::move(plan), std::move(placement)});
  }
  return models;
}

// Every offset moved up by `bytes` (room below for a tensor moved down).
void shift_up(TensorPlacement& p, int64_t bytes) {
  for (int64_t& offset : p.offsets) {
    if (offset >= 0) offset += bytes;
  }
  p.arena_size += bytes;
}

// A validator finding on the pair: "tensors X [..) and Y [..) ...", either order.
bool validator_names(const VerifyResult& result, int32_t a, int32_t b) {
  return std::any_of(result.validator_errors.begin(), result.validator_errors.end(), [&](const std::string& e) {
    auto names = [&](int32_t low, int32_t high) {
      return e.starts_with(fmt::format("tensors {} [", low)) && e.find(fmt::format(") and {} [", high)) != std::string::npos;
    };
    return names(a, b) || names(b, a);
  });
}

TEST(DmoPlanVerify, OneByteOverATensorLiveAtTheSameTimeIsFound) {
  DMO_REQUIRE_SHARED(shared);
  int checked = 0, with_store_clobber = 0;
  std::vector<PlannedModel> models = runnable_golden_models(shared);
  EXPECT_EQ(models.size(), 32u);
  for (PlannedModel& m : models) {
    SCOPED_TRACE(m.name);
    const Subgraph& sg = m.graph.main();
    const std::vector<BufferRequest>& buffers = m.plan.problem.buffers;
    // b: an op's output; a: live before that op and at it, preferably read
    // after it too (then the checked run must see b's store over a value a
    // later op needs).
    std::optional<std::pair<size_t, size_t>> chosen;
    bool needed_later = false;
    for (size_t b = 0; b < buffers.size() && !needed_later; ++b) {
      const int32_t k = buffers[b].lifetime.first;
      if (k < 0) continue;
      for (size_t a = 0; a < buffers.size(); ++a) {
        const Lifetime& live = buffers[a].lifetime;
        if (a == b || live.first >= k || live.last < k) continue;
        if (!chosen || live.last > k) chosen = {a, b};
        if (live.last > k) {
          needed_later = true;
          break;
        }
      }
    }
    ASSERT_TRUE(chosen.has_value()) << "no two tensors live together";
    const auto [a, b] = *chosen;
    const int32_t k = buffers[b].lifetime.first, ta = buffers[a].tensor, tb = buffers[b].tensor;
    SCOPED_TRACE(fmt::format("tensor {} (op {}'s output) over tensor {}", tb, k, ta));
    TensorPlacement p = m.placement;
    // Over a's last byte, or under its first when op k walks descending
    // (where an output may sit over its dying input's end).
    const bool below = std::count(p.descending_ops.begin(), p.descending_ops.end(), k) > 0;
    if (below) {
      shift_up(p, buffers[b].size);
      p.offsets[static_cast<size_t>(tb)] = p.offsets[static_cast<size_t>(ta)] - buffers[b].size + 1;
    } else {
      p.offsets[static_cast<size_t>(tb)] = p.offsets[static_cast<size_t>(ta)] + buffers[a].size - 1;
      p.arena_size = std::max(p.arena_size, p.offsets[static_cast<size_t>(tb)] + buffers[b].size);
    }
    const VerifyResult result = verify_plan(m.graph, p, pattern_input(sg, 1));
    EXPECT_FALSE(result.ok());
    EXPECT_TRUE(validator_names(result, ta, tb)) << result.describe(m.graph);
    if (needed_later) {
      const Clobber want{k, Clobber::Access::kStore, tb, ta, below ? 0 : buffers[a].size - 1, 1};
      EXPECT_TRUE(std::any_of(result.clobbers.begin(), result.clobbers.end(), [&](const Clobber& c) {
        return c.op == want.op && c.access == want.access && c.writer == want.writer && c.tensor == want.tensor &&
               c.byte_offset == want.byte_offset && c.bytes == want.bytes;
      })) << result.describe(m.graph);
      ++with_store_clobber;
    }
    ++checked;
  }
  std::printf("one byte over a live tensor: %d models, %d with the clobber of a value a later op needs\n", checked,
              with_store_clobber);
  EXPECT_EQ(checked, static_cast<int>(models.size()));
  EXPECT_GE(with_store_clobber, 8);
}

TEST(DmoPlanVerify, OneElementPastAnOpsSafeOverlapIsFound) {
  DMO_REQUIRE_SHARED(shared);
  int checked = 0;
  for (PlannedModel& m : runnable_golden_models(shared)) {
    SCOPED_TRACE(m.name);
    const Subgraph& sg = m.graph.main();
    const MemoryProblem& problem = m.plan.problem;
    for (const OverlapPair& pair : problem.overlaps) {
      const BufferRequest &in = problem.buffers[static_cast<size_t>(pair.input_buffer)],
                          &out = problem.buffers[static_cast<size_t>(pair.output_buffer)];
      TensorPlacement p = m.placement;
      const bool descending = std::count(p.descending_ops.begin(), p.descending_ops.end(), pair.op) > 0;
      const int64_t at_in = p.offsets[static_cast<size_t>(in.tensor)], at_out = p.offsets[static_cast<size_t>(out.tensor)];
      // An op whose output overlaps its dying input by exactly the plan's O_s.
      const int64_t overlap = descending ? at_in + in.size - at_out : at_out + out.size - at_in;
      if (overlap <= 0 || overlap != (descending ? pair.safe_overlap_descending : pair.safe_overlap)) continue;
      // The plan's O_s is floored to its alignment: go one element past the exact one.
      const int64_t exact = algorithmic_safe_overlap(m.graph, pair.op, in.tensor, out.tensor, descending);
      const int64_t element = out.size / sg.tensors[static_cast<size_t>(out.tensor)].element_count;
      const int64_t tighter = exact + element;
      if (tighter > std::min(in.size, out.size)) continue;
      SCOPED_TRACE(fmt::format("op {} ({}) {}: O_s {}, overlap {}", pair.op, sg.ops[static_cast<size_t>(pair.op)].name(),
                               descending ? "descending" : "ascending", exact, tighter));
      if (descending) {
        p.offsets[static_cast<size_t>(out.tensor)] = at_in + in.size - tighter;
      } else {
        shift_up(p, out.size);
        p.offsets[static_cast<size_t>(out.tensor)] = p.offsets[static_cast<size_t>(in.tensor)] - out.size + tighter;
      }
      const VerifyResult result = verify_plan(m.graph, p, pattern_input(sg, 1));
      EXPECT_FALSE(result.ok());
      EXPECT_TRUE(validator_names(result, in.tensor, out.tensor)) << result.describe(m.graph);
      // The op reads an input byte its output already replaced.
      EXPECT_TRUE(std::any_of(result.clobbers.begin(), result.clobbers.end(), [&](const Clobber& c) {
        return c.op == pair.op && c.access == Clobber::Access::kLoad && c.writer == out.tensor && c.tensor == in.tensor;
      })) << result.describe(m.graph);
      ++checked;
      break;  // one op per model keeps the sweep short
    }
  }
  std::printf("one element past an op's safe overlap: %d models\n", checked);
  // The models with an op at exactly its plan's O_s and room for one element more.
  EXPECT_GE(checked, 8);
}

}  // namespace
}  // namespace dmo

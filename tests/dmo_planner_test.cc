// dmo's planner: small problems with known optima, the seed's check values
// on zoo MobileNets, and the arena figures of real models.
#include <gtest/gtest.h>

#include <cstdio>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <utility>

#include "dmo/plan/bounds.h"
#include "dmo/plan/dmo_planner.h"
#include "dmo/plan/overlap_placement.h"
#include "dmo/plan/tflm_greedy_planner.h"
#include "dmo/plan/plan_validator.h"
#include "dmo/report/plan_report.h"
#include "dmo/tflite/reader.h"
#include "dmo/zoo/zoo.h"
#include "test_support.h"

namespace dmo {
namespace {

MemoryProblem chain(std::vector<int64_t> sizes, std::vector<int64_t> safe_overlaps) {
  // Tensor k lives from op k-1 to op k; op k turns tensor k into k+1.
  MemoryProblem p;
  p.op_count = static_cast<int32_t>(sizes.size()) - 1;
  for (size_t k = 0; k < sizes.size(); ++k) {
    p.buffers.push_back({static_cast<int32_t>(k), sizes[k], {static_cast<int32_t>(k) - 1, static_cast<int32_t>(k)}});
  }
  p.buffers.back().lifetime.last = p.op_count - 1;
  for (size_t k = 0; k < safe_overlaps.size(); ++k) {
    if (safe_overlaps[k] > 0) {
      p.overlaps.push_back({static_cast<int32_t>(k), static_cast<int32_t>(k + 1), static_cast<int32_t>(k),
                            safe_overlaps[k]});
    }
  }
  return p;
}

TEST(DmoPlanner, InPlaceChainNeedsOneBuffer) {
  MemoryProblem p = chain({256, 256, 256, 256}, {256, 256, 256});
  Plan plan = plan_dmo(p);
  EXPECT_TRUE(validate_plan(p, plan, 16).empty());
  EXPECT_EQ(plan.arena_size, 256);
  EXPECT_EQ(lower_bound_with_overlap_bytes(p), 256);
}

TEST(DmoPlanner, SearchHonoursAlignmentFixedOffsetsAndAliases) {
  // The chain whose forced overlaps add up (the search has to work for its
  // arena), with one buffer that must start on a multiple of 64, a 64-byte
  // buffer fixed at offset 0 live throughout and a 100-byte view into the
  // last buffer's middle.
  MemoryProblem p = chain({1000, 1000, 1000, 1000}, {900, 900, 900});
  p.buffers[2].alignment = 64;
  p.buffers.push_back({4, 64, {-1, 2}});
  p.buffers.back().fixed_offset = 0;
  p.buffers.push_back({5, 100, {2, 2}});
  p.aliases.push_back({5, 3, 500});
  for (bool use_overlaps : {true, false}) {
    Plan plan = plan_dmo(p, {.use_overlaps = use_overlaps, .alignment = 4});
    std::vector<std::string> errors = validate_plan(p, plan, 4);
    EXPECT_TRUE(errors.empty()) << errors.front();
    EXPECT_EQ(plan.offsets[2] % 64, 0);
    EXPECT_EQ(plan.offsets[4], 0);
    EXPECT_EQ(plan.offsets[5], plan.offsets[3] + 500);
    EXPECT_GE(plan.arena_size, use_overlaps ? chain_lower_bound_with_overlap_bytes(p) : lower_bound_bytes(p));
  }
}

TEST(DmoPlanner, WithoutOverlapsReachesTheNoOverlapBound) {
  MemoryProblem p = chain({256, 512, 128, 512, 64}, {});
  Plan plan = plan_dmo(p, {.use_overlaps = false});
  EXPECT_TRUE(validate_plan(p, plan, 16).empty());
  EXPECT_EQ(plan.arena_size, lower_bound_bytes(p));
  EXPECT_EQ(plan.arena_size, 768);  // op 0 holds 256 + 512
}

// The arena counts each buffer as TFLM lays it out: its size rounded up to
// 16 bytes. An op with a 17-byte input dying into a 17-byte output may put
// the output over all of the input, yet TFLM still needs 32 bytes for it.
TEST(DmoPlanner, ArenaCountsSizesRoundedUpAsTflmDoes) {
  MemoryProblem p = chain({17, 17}, {17});
  EXPECT_EQ(plan_dmo(p, {.alignment = 16, .end_rounding = 1}).arena_size, 17);
  Plan plan = plan_dmo(p);
  EXPECT_TRUE(validate_plan(p, plan, 16).empty());
  EXPECT_EQ(plan.arena_size, 32);
  EXPECT_EQ(plan_tflm_greedy(p).arena_size, 64);
}

// The geometry tests below measure exact bytes (end_rounding 1).
TEST(DmoPlanner, ForcedOverlapsAlongAChainAddUp) {
  // Every op holds 2 x 1000 bytes and may overlap 900: the output must sit
  // 100 bytes below its input each time, so a run of three such ops needs
  // 1000 + 3 x 100 although each op alone needs only 1100.
  MemoryProblem p = chain({1000, 1000, 1000, 1000}, {900, 900, 900});
  EXPECT_EQ(lower_bound_with_overlap_bytes(p), 1100);
  EXPECT_EQ(chain_lower_bound_with_overlap_bytes(p), 1300);
  Plan plan = plan_dmo(p, {.alignment = 4, .end_rounding = 1});
  EXPECT_TRUE(validate_plan(p, plan, 4).empty());
  EXPECT_EQ(plan.arena_size, 1300);
}

TEST(DmoPlanner, ChainBoundIsABoundNotAlwaysTheOptimum) {
  // The middle ops have room, so no chain of forced overlaps runs through
  // them and the bound stays at 1,100. Yet in 1,100 bytes op 3 puts its input
  // at 100, which pushes tensor 2 to [0, 100), tensor 1 to 100 and op 0's
  // input to 200: 1,200 is the optimum, and the planner finds it.
  MemoryProblem p = chain({1000, 1000, 100, 1000, 1000}, {900, 0, 0, 900});
  EXPECT_EQ(chain_lower_bound_with_overlap_bytes(p), 1100);
  Plan plan = plan_dmo(p, {.alignment = 4, .end_rounding = 1});
  EXPECT_TRUE(validate_plan(p, plan, 4).empty());
  EXPECT_EQ(plan.arena_size, 1200);
}

// Like chain() with both walks: op k may overlap ascending by ascending[k]
// and descending by descending[k] bytes.
MemoryProblem two_way_chain(std::vector<int64_t> sizes, std::vector<int64_t> ascending,
                            std::vector<int64_t> descending) {
  MemoryProblem p = chain(sizes, ascending);
  p.overlaps.clear();
  for (size_t k = 0; k < ascending.size(); ++k) {
    p.overlaps.push_back({static_cast<int32_t>(k), static_cast<int32_t>(k + 1), static_cast<int32_t>(k), ascending[k],
                          descending[k]});
  }
  return p;
}

TEST(DmoPlanner, DescendingWalksLetAChainZigZag) {
  // As above, but each op may also walk descending with the same overlap:
  // alternating walks keep every buffer within 100 bytes of the first one.
  MemoryProblem p = two_way_chain({1000, 1000, 1000, 1000, 1000}, {900, 900, 900, 900}, {900, 900, 900, 900});
  EXPECT_EQ(lower_bound_with_overlap_bytes(p), 1100);
  EXPECT_EQ(chain_lower_bound_with_overlap_bytes(p), 1100);
  Plan plan = plan_dmo(p, {.alignment = 4, .end_rounding = 1});
  EXPECT_TRUE(validate_plan(p, plan, 4).empty());
  EXPECT_EQ(plan.arena_size, 1100);
  EXPECT_EQ(plan.descending_ops.size(), 2u);
  // Ascending only, the same problem drifts down by 100 per op; descending
  // only, it climbs by as much.
  MemoryProblem down = p, up = p;
  for (OverlapPair& pair : down.overlaps) pair.safe_overlap_descending = 0;
  for (OverlapPair& pair : up.overlaps) pair.safe_overlap_descending = 900;
  for (OverlapPair& pair : up.overlaps) pair.safe_overlap = 0;
  for (const MemoryProblem* one_way : {&down, &up}) {
    EXPECT_EQ(chain_lower_bound_with_overlap_bytes(*one_way), 1400);
    Plan one_way_plan = plan_dmo(*one_way, {.alignment = 4, .end_rounding = 1});
    EXPECT_TRUE(validate_plan(*one_way, one_way_plan, 4).empty());
    EXPECT_EQ(one_way_plan.arena_size, 1400);
  }
  EXPECT_EQ(plan_dmo(up, {.alignment = 4, .end_rounding = 1}).descending_ops.size(), 4u);
}

TEST(DmoPlanner, UnequalDisplacementsStillZigZag) {
  // A depthwise-like op (output 40 below or 40 above) then a pointwise-like
  // one (at least 4 either way), four times. A displacement is a minimum:
  // the pointwise op may put its output a full 40 bytes back, so the run
  // stays within 1000 + 40 bytes, the per-op bound.
  MemoryProblem p = two_way_chain({1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000},
                                  {960, 996, 960, 996, 960, 996, 960, 996}, {960, 996, 960, 996, 960, 996, 960, 996});
  EXPECT_EQ(lower_bound_with_overlap_bytes(p), 1040);
  EXPECT_EQ(chain_lower_bound_with_overlap_bytes(p), 1040);
  Plan plan = plan_dmo(p, {.alignment = 4, .end_rounding = 1});
  EXPECT_TRUE(validate_plan(p, plan, 4).empty());
  EXPECT_EQ(plan.arena_size, 1040);
}

PlanResult zoo_report(const std::string& name, OverlapMethod method, int64_t alignment = 16) {
  Graph graph = build_zoo_model(name);
  return plan_model(graph, {.method = method, .preserve_graph_inputs = false, .alignment = alignment});
}

// The seed's check values: MobileNet v2 1.0 224 float32 peaks at the second
// depthwise conv pair, 6,021,120 bytes without overlap and 4,816,956 with the
// algorithmic O_s floored to the 4-byte element.
// Ops in a row, each with one to three inputs among the last few tensors
// and one output; pairs (both walks) for some dying inputs, some buffers
// aligned to 64 and one a view into another.
MemoryProblem random_problem(std::mt19937& rng) {
  auto draw = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  MemoryProblem p;
  p.op_count = draw(6, 14);
  p.buffers.push_back({0, 16 * draw(1, 40), {-1, 0}});
  for (int32_t op = 0; op < p.op_count; ++op) {
    const auto out = static_cast<int32_t>(p.buffers.size());
    p.buffers.push_back({out, 16 * draw(1, 40) + draw(0, 15), {op, op}});
    if (draw(0, 4) == 0) p.buffers.back().alignment = 64;
    for (int inputs = draw(1, 3); inputs > 0; --inputs) {
      const int32_t in = std::max(0, out - draw(1, 4));
      BufferRequest& b = p.buffers[static_cast<size_t>(in)];
      b.lifetime.last = std::max(b.lifetime.last, op);
    }
  }
  p.buffers.back().lifetime.last = p.op_count - 1;
  for (int32_t op = 0; op < p.op_count; ++op) {
    for (size_t in = 0; in < p.buffers.size(); ++in) {
      const BufferRequest& b = p.buffers[in];
      if (b.lifetime.last != op || b.lifetime.first >= op || draw(0, 2) == 0) continue;
      const auto out = static_cast<int32_t>(op + 1);
      p.overlaps.push_back({op, out, static_cast<int32_t>(in), 16 * draw(0, 20), 16 * draw(0, 10)});
    }
  }
  // A view into the last op's output (they live together from there on).
  const auto base = static_cast<int32_t>(p.buffers.size()) - 1;
  p.buffers.push_back({base + 1, 16, p.buffers[static_cast<size_t>(base)].lifetime});
  p.aliases.push_back({base + 1, base, 0});
  return p;
}

// follow() copies the buffers a move cannot displace from the track: every
// move of the hill climb's kind then places exactly as add() in order does.
TEST(OverlapPlacerFollow, PlacesEveryMoveAsAddingInOrderDoes) {
  std::mt19937 rng(20261203);
  int64_t compared = 0;
  for (int round = 0; round < 60; ++round) {
    const MemoryProblem p = random_problem(rng);
    const OverlapPlacer placer(p, 16, true, 16);
    std::vector<int32_t> order(p.buffers.size());
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    const OverlapPlacer::Track track = placer.track(order);
    const auto n = static_cast<int32_t>(order.size());
    for (int32_t from = 0; from < n; ++from) {
      for (int32_t to = 0; to < n; ++to) {
        if (to == from) continue;
        // The moved order, placed buffer by buffer.
        std::vector<int32_t> moved_order = order;
        const auto begin = moved_order.begin();
        if (to < from) {
          std::rotate(begin + to, begin + from, begin + from + 1);
        } else {
          std::rotate(begin + from, begin + from + 1, begin + to + 1);
        }
        OverlapPlacer::Partial expected = placer.start();
        for (int32_t b : moved_order) placer.add(expected, b);
        // The same move as the planner makes it: the track's prefix, the
        // moved buffer, then follow.
        OverlapPlacer::Partial followed;
        if (to < from) {
          placer.prefix(track, to, followed);
          placer.add(followed, order[static_cast<size_t>(from)]);
          placer.follow(track, order, to, followed, std::numeric_limits<int64_t>::max(), from);
        } else {
          placer.prefix(track, from, followed);
          for (int32_t pos = from + 1; pos <= to; ++pos) placer.add(followed, order[static_cast<size_t>(pos)]);
          placer.add(followed, order[static_cast<size_t>(from)]);
          placer.follow(track, order, to + 1, followed, std::numeric_limits<int64_t>::max());
        }
        ASSERT_TRUE(OverlapPlacer::same(expected, followed)) << "round " << round << " from " << from << " to " << to;
        ASSERT_EQ(expected.top, followed.top);
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 5000);
}

TEST(DmoPlannerCheckValues, MobileNetV2Float) {
  PlanResult alg = zoo_report("mobilenet_v2_1.0_224_float32", OverlapMethod::kAlgorithmic, 4);
  EXPECT_EQ(alg.lower_bound_bytes, 6021120);
  EXPECT_EQ(alg.dmo_no_overlap.arena_size, 6021120);
  EXPECT_LE(alg.dmo.arena_size, 4816956);
  EXPECT_EQ(alg.dmo.arena_size, alg.lower_bound_overlap_bytes);

  // With analytic O_s the per-op bound is the seed's 4,827,744. With
  // ascending walks only, the expand conv before the peak (O_s 802,756 of
  // 802,816 bytes) must put its input 60 bytes above the depthwise input
  // that sits 10,848 above its output: 4,827,804 is the least. Walking the
  // expand conv descending puts its output above its input instead, and the
  // two displacements no longer add up.
  PlanResult ana = zoo_report("mobilenet_v2_1.0_224_float32", OverlapMethod::kAnalytic, 4);
  EXPECT_EQ(ana.lower_bound_overlap_per_op_bytes, 4827744);
  EXPECT_EQ(ana.lower_bound_overlap_bytes, 4827744);
  EXPECT_EQ(ana.dmo.arena_size, 4827744);
  EXPECT_FALSE(ana.dmo.descending_ops.empty());
  EXPECT_EQ(ana.dmo_ascending.arena_size, 4827804);
}

TEST(DmoPlannerCheckValues, MobileNetV1QuarterQuantized) {
  for (const char* name : {"mobilenet_v1_0.25_128_int8", "mobilenet_v1_0.25_128_uint8"}) {
    SCOPED_TRACE(name);
    PlanResult r = zoo_report(name, OverlapMethod::kAlgorithmic);
    EXPECT_EQ(r.dmo_no_overlap.arena_size, 98304);
    EXPECT_LE(r.dmo.arena_size, 65800);
  }
}

TEST(DmoPlannerFigures, MlperfTinyAndPersonDetect) {
  DMO_REQUIRE_SHARED(shared);
  const std::map<std::string, int64_t> at_most = {{"tiny_vww_96_int8", 37500},
                                                  {"tiny_resnet8_int8", 33500},
                                                  {"tflm_person_detect_int8", 37500},
                                                  {"tiny_kws_ref_model_int8", 8500}};
  for (const auto& [name, bytes] : at_most) {
    SCOPED_TRACE(name);
    Graph graph = read_tflite_file(shared + "/models/" + name + ".tflite");
    PlanResult r = plan_model(graph);
    EXPECT_LE(r.dmo.arena_size, bytes);
    EXPECT_EQ(r.dmo.arena_size, r.lower_bound_overlap_bytes);
    EXPECT_EQ(r.dmo_no_overlap.arena_size, r.lower_bound_bytes);
  }
  // KWS's eight 16,000-byte ops must all overlap below 16,000 bytes. Walking
  // ascending only, the outputs drift down by 4 x 384 (depthwise) + 4 x 64
  // (pointwise) bytes: 9,792 is the least any placement can use. Letting the
  // convs walk descending, the run zig-zags and reaches the per-op bound.
  Graph kws = read_tflite_file(shared + "/models/tiny_kws_ref_model_int8.tflite");
  PlanResult kws_report = plan_model(kws);
  EXPECT_EQ(kws_report.dmo.arena_size, 8384);
  EXPECT_EQ(kws_report.lower_bound_overlap_per_op_bytes, 8384);
  EXPECT_EQ(kws_report.dmo_ascending.arena_size, 9792);
  PlanResult kws_ascending = plan_model(kws, {.allow_descending = false});
  EXPECT_EQ(kws_ascending.lower_bound_overlap_bytes, 9792);
  EXPECT_EQ(kws_ascending.dmo.arena_size, 9792);
}

TEST(DmoPlannerFigures, NeverAboveTflmAndNearTheBoundOnEveryModel) {
  DMO_REQUIRE_SHARED(shared);
  // Where dmo's plan is further than the slack above the bound today: the
  // arena it reaches, so it can only improve. tflm_pr_id_model with analytic
  // O_s plans no overlap at its peak (a PAD, where analytic falls back to the
  // algorithmic value) although the bound is 3,104 bytes lower.
  // tflm_audio_preprocessor_int8 peaks at SignalRfft, whose 1,024-byte
  // scratch buffer TFLM's first fit places around dmo's tensors: 2,096 bytes
  // against a bound of 1,992 (analytic has no closed form for the signal
  // ops and takes their algorithmic O_s). The two control-flow models,
  // planned whole, have only tensors of 1 to 4 bytes, each taking 16 in a
  // plan: 8 (7) live together at the peak are 128 (112) bytes, what dmo
  // reaches, far above the unrounded bound.
  const std::map<std::pair<std::string, OverlapMethod>, int64_t> known_gaps = {
      {{"tflm_pr_id_model", OverlapMethod::kAnalytic}, 150760},
      {{"tflm_audio_preprocessor_int8", OverlapMethod::kAnalytic}, 2096},
      {{"tflm_audio_preprocessor_int8", OverlapMethod::kAlgorithmic}, 2096},
      {{"litert_multi_subgraphs_while", OverlapMethod::kAnalytic}, 128},
      {{"litert_multi_subgraphs_while", OverlapMethod::kAlgorithmic}, 128},
      {{"litert_nested_while", OverlapMethod::kAnalytic}, 112},
      {{"litert_nested_while", OverlapMethod::kAlgorithmic}, 112}};
  for (const std::string& file : test::tflite_files_in(shared + "/models")) {
    SCOPED_TRACE(file);
    Graph graph = read_tflite_file(file);
    for (OverlapMethod method : {OverlapMethod::kAnalytic, OverlapMethod::kAlgorithmic}) {
      SCOPED_TRACE(overlap_method_name(method));
      PlanResult r = plan_model(graph, {.method = method});
      // TFLM's greedy plan of dmo's problem: the model's own figure where it
      // has no offline plan (an offline plan may overlap live tensors).
      const int64_t tflm = plan_tflm_greedy(r.problem).arena_size;
      if (!graph.offline_plan) {
        EXPECT_EQ(tflm, r.tflm_greedy.arena_size);
      }
      EXPECT_LE(r.dmo.arena_size, tflm);
      EXPECT_LE(r.dmo_no_overlap.arena_size, tflm);
      // No plan is below a bound, also where an accelerator op's tensors keep
      // their offline offsets, which share bytes (Vela's plan): the bounds
      // count the bytes fixed buffers cover, not their sum.
      EXPECT_GE(r.dmo.arena_size, r.lower_bound_overlap_bytes);
      EXPECT_GE(r.dmo.arena_size, r.lower_bound_window_bytes);
      EXPECT_GE(r.dmo_no_overlap.arena_size, r.lower_bound_bytes);
      if (r.accelerator_fixed_buffers != 0) {
        EXPECT_LE(r.dmo.arena_size, r.tflm_greedy.arena_size);
        continue;
      }
      auto gap = known_gaps.find({test::file_stem(file), method});
      if (gap != known_gaps.end()) {
        std::printf("[ gap      ] %s %s: dmo %lld bytes, bound %lld\n", test::file_stem(file).c_str(),
                    overlap_method_name(method), static_cast<long long>(r.dmo.arena_size),
                    static_cast<long long>(r.lower_bound_overlap_bytes));
        EXPECT_LE(r.dmo.arena_size, gap->second);
        continue;
      }
      int64_t slack = std::max<int64_t>(64, r.lower_bound_overlap_bytes / 100);
      EXPECT_LE(r.dmo.arena_size, r.lower_bound_overlap_bytes + slack);
    }
  }
}

// Where many buffers live together each placement walks many conflicts:
// the search stops once its placements have walked work_budget of them.
// With none left it searches nothing, as with a search budget of 0.
TEST(DmoPlanner, SearchStopsAtItsWorkBudget) {
  std::mt19937 rng(20261203);
  MemoryProblem dense;
  dense.op_count = 40;
  for (int32_t b = 0; b < 300; ++b) {
    const int32_t first = std::uniform_int_distribution<int32_t>(-1, 30)(rng);
    const int32_t last = first + std::uniform_int_distribution<int32_t>(0, 9)(rng);
    dense.buffers.push_back({b, 16 * std::uniform_int_distribution<int64_t>(1, 40)(rng), {first, std::max(last, 0)}});
  }
  DmoPlannerOptions no_search, no_work, repair_off;
  repair_off.repair_peak = no_search.repair_peak = no_work.repair_peak = false;
  no_search.search_budget = 0;
  no_work.work_budget = 0;
  const Plan searched = plan_dmo(dense, repair_off);
  const Plan unsearched = plan_dmo(dense, no_search);
  ASSERT_LT(searched.arena_size, unsearched.arena_size) << "the search must have something to do here";
  const Plan stopped = plan_dmo(dense, no_work);
  EXPECT_EQ(stopped.offsets, unsearched.offsets);
  EXPECT_TRUE(validate_plan(dense, stopped, 16).empty());
}

}  // namespace
}  // namespace dmo

// Speed of the things users wait for: planning and running real models.
// Build with -DDMO_BUILD_BENCHMARKS=ON; run build/bench/dmo_bench
// --benchmark_repetitions=5 --benchmark_report_aggregates_only=true.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "dmo/overlap/safe_overlaps.h"
#include "dmo/pipeline/reordered_plan.h"
#include "dmo/pipeline/split_request.h"
#include "dmo/pipeline/split_search.h"
#include "dmo/plan/dmo_plan_choice.h"
#include "dmo/plan/dmo_planner.h"
#include "dmo/plan/problem_file.h"
#include "dmo/plan/tflm_greedy_planner.h"
#include "dmo/report/plan_report.h"
#include "dmo/runtime/input_pattern.h"
#include "dmo/runtime/interpreter.h"
#include "dmo/tflite/reader.h"
#include "dmo/zoo/zoo.h"

namespace {

std::string shared_model(const char* name) {
  const char* env = std::getenv("DMO_SHARED_DIR");
  return std::string(env ? env : DMO_SHARED_DIR) + "/models/" + name + ".tflite";
}

bool have(const std::string& path, benchmark::State& state) {
  if (std::filesystem::exists(path)) return true;
  state.SkipWithError("../shared not found");
  return false;
}

void BM_ImportAndPlanTflmGreedy(benchmark::State& state) {
  const std::string path = shared_model("coral_mobilenet_v2_1.0_224_quant");
  if (!have(path, state)) return;
  for (auto _ : state) {
    dmo::Graph graph = dmo::read_tflite_file(path);
    dmo::MemoryProblem problem = dmo::build_memory_problem(graph.main());
    benchmark::DoNotOptimize(dmo::plan_tflm_greedy(problem).arena_size);
  }
}
BENCHMARK(BM_ImportAndPlanTflmGreedy)->Unit(benchmark::kMillisecond);

// Overlaps and dmo's plan for zoo MobileNet v2 1.0 224 float32, graph built once.
void plan_mobilenet_v2(benchmark::State& state, dmo::OverlapMethod method) {
  dmo::Graph graph = dmo::build_zoo_model("mobilenet_v2_1.0_224_float32");
  for (auto _ : state) {
    dmo::SafeOverlapOptions options;
    options.method = method;
    options.compute_algorithmic = false;  // only what the method needs
    dmo::MemoryProblem problem = dmo::build_memory_problem(graph.main());
    dmo::add_overlap_pairs(problem, dmo::compute_safe_overlaps(graph, options));
    benchmark::DoNotOptimize(dmo::plan_dmo(problem).arena_size);
  }
}
void BM_PlanMobileNetV2Analytic(benchmark::State& state) { plan_mobilenet_v2(state, dmo::OverlapMethod::kAnalytic); }
void BM_PlanMobileNetV2Algorithmic(benchmark::State& state) {
  plan_mobilenet_v2(state, dmo::OverlapMethod::kAlgorithmic);
}
BENCHMARK(BM_PlanMobileNetV2Analytic)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PlanMobileNetV2Algorithmic)->Unit(benchmark::kMillisecond);

// `dmo plan coral_mobilenet_v2_1.0_224_quant.tflite --split auto`: the
// model read and the split search (its unsplit overlaps, the stage sets it
// plans, and plan_model of the set chosen) with the command's defaults.
void BM_PlanMobileNetV2SplitAuto(benchmark::State& state) {
  const std::string path = shared_model("coral_mobilenet_v2_1.0_224_quant");
  if (!have(path, state)) return;
  for (auto _ : state) {
    dmo::Graph graph = dmo::read_tflite_file(path);
    const dmo::SplitSearchResult search =
        dmo::search_split_stages(graph, dmo::PlanOptions{}, dmo::SplitRequest{}.max_recompute_percent);
    benchmark::DoNotOptimize(search.plan.dmo.arena_size);
  }
}
BENCHMARK(BM_PlanMobileNetV2SplitAuto)->Unit(benchmark::kMillisecond)->Repetitions(5)->ReportAggregatesOnly(true);

// The same search on the zoo's int8 MobileNet v2 1.0 224 (built in, so it
// runs without ../shared): its stages need the least-recompute descent.
void BM_PlanZooMobileNetV2Int8SplitAuto(benchmark::State& state) {
  const dmo::Graph graph = dmo::build_zoo_model("mobilenet_v2_1.0_224_int8");
  for (auto _ : state) {
    const dmo::SplitSearchResult search =
        dmo::search_split_stages(graph, dmo::PlanOptions{}, dmo::SplitRequest{}.max_recompute_percent);
    benchmark::DoNotOptimize(search.plan.dmo.arena_size);
  }
}
BENCHMARK(BM_PlanZooMobileNetV2Int8SplitAuto)->Unit(benchmark::kMillisecond)->Repetitions(5)->ReportAggregatesOnly(true);

// Reading and solving a problem file (what `dmo solve` does): zoo MobileNet
// v2 1.0 224 float32's problem with its algorithmic overlap pairs, written once.
void BM_SolveProblemFileMobileNetV2(benchmark::State& state) {
  dmo::Graph graph = dmo::build_zoo_model("mobilenet_v2_1.0_224_float32");
  const std::string path = (std::filesystem::temp_directory_path() / "dmo_bench_mobilenet_v2.problem.json").string();
  std::ofstream(path) << dmo::problem_json(dmo::plan_model(graph).problem);
  for (auto _ : state) {
    dmo::MemoryProblem problem = dmo::read_problem_file(path);
    benchmark::DoNotOptimize(dmo::choose_dmo_plan(problem, 16).dmo.arena_size);
  }
  std::filesystem::remove(path);
}
BENCHMARK(BM_SolveProblemFileMobileNetV2)->Unit(benchmark::kMillisecond);

// One inference inside dmo's arena (the interpreter set up and its ops
// prepared once, as firmware does), as `dmo run --repeat` times it.
void run_model(benchmark::State& state, const char* name) {
  const std::string path = shared_model(name);
  if (!have(path, state)) return;
  dmo::Graph graph = dmo::read_tflite_file(path);
  dmo::PlanResult report = dmo::plan_model(graph);
  dmo::Interpreter interpreter(graph, dmo::placement_from_plan(graph.main(), report.problem, report.dmo));
  interpreter.prepare_all();
  std::vector<uint8_t> input = dmo::pattern_input(graph.main(), 1);
  for (auto _ : state) {
    interpreter.set_inputs(input);
    interpreter.run();
  }
}

// The four models with a TFLM reference-kernel time in the README, and the
// shared models whose ops (LSTM, BATCH_MATMUL, TRANSPOSE, RESIZE, GATHER,
// WHILE, TFLM's signal ops) dmo runs since its kernels grew: median of 5.
void register_model_runs() {
  for (const char* name : {"tiny_vww_96_int8", "tfls_mobilenet_v1_0.25_224_float", "tiny_kws_ref_model_int8",
                           "tiny_resnet8_int8", "tflm_mnist_lstm_int8", "litert_ff", "tflm_pr_retinaface",
                           "tfls_deeplabv3_float", "tfls_movie_review_float", "litert_nested_while",
                           "tflm_pr_id_model", "tflm_audio_preprocessor_int8"}) {
    benchmark::RegisterBenchmark((std::string("BM_Run/") + name).c_str(),
                                 [name](benchmark::State& state) { run_model(state, name); })
        ->Unit(benchmark::kMillisecond)
        ->Repetitions(5)
        ->ReportAggregatesOnly(true);
  }
}
const bool kModelRunsRegistered = (register_model_runs(), true);

// `dmo plan --reorder auto`: the order search alone (the safe overlaps
// computed once, as the pipeline does), per shared model, with the method
// it took and the sets of executed ops it visited as counters.
void reorder_search(benchmark::State& state, const std::string& path) {
  dmo::Graph graph = dmo::read_tflite_file(path);
  const dmo::PlanOptions options;
  const std::vector<dmo::OpOverlap> overlaps = dmo::unsplit_safe_overlaps(graph, options);
  dmo::OrderSearch found;
  for (auto _ : state) found = dmo::search_order_for(graph, overlaps, options);
  // 1 when the order is exact (a chain needs no search), 0 for the beam.
  state.counters["exact"] = found.method == dmo::ReorderMethod::kExact || found.method == dmo::ReorderMethod::kChain;
  state.counters["states"] = static_cast<double>(found.states_visited);
  state.counters["ops"] = static_cast<double>(graph.main().ops.size());
}

// The whole of `dmo plan --reorder auto` (import excluded): both orders
// planned with and without in-place concatenation.
void reorder_plan(benchmark::State& state, const std::string& path) {
  dmo::Graph graph = dmo::read_tflite_file(path);
  for (auto _ : state) {
    benchmark::DoNotOptimize(dmo::plan_with_reorder(graph, {}, dmo::ReorderRequest::kAuto).plan.dmo.arena_size);
  }
}

void register_reorder() {
  const char* env = std::getenv("DMO_SHARED_DIR");
  const std::filesystem::path models = std::filesystem::path(env ? env : DMO_SHARED_DIR) / "models";
  std::error_code ec;
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::directory_iterator(models, ec)) {
    if (entry.path().extension() == ".tflite") paths.push_back(entry.path().string());
  }
  std::sort(paths.begin(), paths.end());
  for (const std::string& path : paths) {
    const std::string stem = std::filesystem::path(path).stem().string();
    benchmark::RegisterBenchmark(("BM_ReorderSearch/" + stem).c_str(),
                                 [path](benchmark::State& state) { reorder_search(state, path); })
        ->Unit(benchmark::kMillisecond);
  }
  for (const char* name : {"litert_topo_sort_fork", "litert_topo_sort_interleaved", "tiny_resnet8_int8"}) {
    const std::string path = shared_model(name);
    benchmark::RegisterBenchmark((std::string("BM_PlanReorderAuto/") + name).c_str(),
                                 [path](benchmark::State& state) {
                                   if (have(path, state)) reorder_plan(state, path);
                                 })
        ->Unit(benchmark::kMillisecond);
  }
}
const bool kReorderRegistered = (register_reorder(), true);

// The whole of `dmo plan MODEL` with its defaults (the model read, its safe
// overlaps, every plan and bound, the report): per shared model and per
// synthetic recurrent graph of 1k, 5k and 20k ops, with ops per second as a
// counter so the growth with graph size shows. Median of 5.
void whole_plan(benchmark::State& state, const std::string& model) {
  int64_t ops = 0;
  for (auto _ : state) {
    dmo::Graph graph = dmo::is_zoo_model_name(model) ? dmo::build_zoo_model(model) : dmo::read_tflite_file(model);
    ops = static_cast<int64_t>(graph.main().ops.size());
    const dmo::PlanResult result = dmo::plan_model(graph);
    benchmark::DoNotOptimize(dmo::plan_report_json(graph, result).dump().size());
  }
  state.counters["ops"] = static_cast<double>(ops);
  state.counters["ops/s"] = benchmark::Counter(static_cast<double>(ops), benchmark::Counter::kIsIterationInvariantRate);
}

void register_whole_plans() {
  const char* env = std::getenv("DMO_SHARED_DIR");
  const std::filesystem::path models = std::filesystem::path(env ? env : DMO_SHARED_DIR) / "models";
  std::error_code ec;
  std::vector<std::string> models_to_plan;
  for (const auto& entry : std::filesystem::directory_iterator(models, ec)) {
    if (entry.path().extension() == ".tflite") models_to_plan.push_back(entry.path().string());
  }
  std::sort(models_to_plan.begin(), models_to_plan.end());
  for (const char* synthetic : {"synthetic_rnn_1000", "synthetic_rnn_5000", "synthetic_rnn_20000"}) {
    models_to_plan.push_back(synthetic);
  }
  for (const std::string& model : models_to_plan) {
    benchmark::RegisterBenchmark(("BM_WholePlan/" + std::filesystem::path(model).stem().string()).c_str(),
                                 [model](benchmark::State& state) { whole_plan(state, model); })
        ->Unit(benchmark::kMillisecond)
        ->Iterations(1)
        ->Repetitions(5)
        ->ReportAggregatesOnly(true);
  }
}
const bool kWholePlansRegistered = (register_whole_plans(), true);

}  // namespace

BENCHMARK_MAIN();

#!/usr/bin/env bash
# Runs the sanitized test binary of a build in two parallel shards, leaving
# out the end-to-end sweeps over every shared model, and fails when either
# shard does: dmo_tests_sanitized of a build configured with
# -DDMO_SANITIZED_TWIN=ON, else dmo_tests of a -DDMO_SANITIZE=ON build.
# Usage: scripts/run-sanitized-tests.sh BUILD_DIR
set -uo pipefail
build="${1:?usage: $0 BUILD_DIR}"
# Whole-model sweeps: each runs every shared model (or every family on
# every model), or plans a full-size MobileNet dozens of times, and takes
# minutes under the sanitizers. The generated projects' per-model builds
# (host and QEMU images) spend their time in the compilers and QEMU, not in
# dmo; Codegen.* keeps dmo codegen itself under the sanitizers.
sweeps=(
  'Tflm/Golden*' 'Tflm/CmsisGolden*' 'DmoPlanVerify*' 'QuantizedVsFloat*' 'ExportShared*' 'OverlapProperty*'
  'DmoPlannerFigures*' 'DmoPlannerCheckValues*' 'GraphWriter*' 'ConvGolden*' 'Readme/*' 'RealModels/ClobberDetection*'
  'Cli.EverySharedModelPlansAsJson*' 'SharedModels.AllImportAndPlanValidly*' 'ProblemFile.RoundTripOfSharedModels*'
  'KernelFamilies.SharedInt8ModelsVerifyUnderEveryFamily*' 'KernelFamilies.ReadmeTableOfArenasPerFamily*'
  'CmsisNnDepthwise.SharedModels*' 'CmsisNnSharedModels.*' 'CmsisNnConv.SharedModels*' 'MutationSweep.*'
  'TflmArena.*' 'ConcatInPlace.SharedModels*' 'TiledExportZoo.*'
  'SharedModels/CodegenSweep*' 'CodegenSweepCoverage.*' 'Models/CodegenCortexM4*' 'Models/CodegenCortexM7*'
)
filter="-$(IFS=:; echo "${sweeps[*]}")"
cd "$build/tests" || exit 2
binary=./dmo_tests_sanitized
if [ ! -x "$binary" ]; then
  if ! grep -q '^DMO_SANITIZE:BOOL=ON' ../CMakeCache.txt 2>/dev/null; then
    echo "$build has neither dmo_tests_sanitized nor a -DDMO_SANITIZE=ON build" >&2
    exit 2
  fi
  binary=./dmo_tests
fi
logs=()
for shard in 0 1; do
  log="sanitized-shard-$shard.log"
  logs+=("$log")
  GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=$shard "$binary" --gtest_filter="$filter" > "$log" 2>&1 &
done
status=0
for job in $(jobs -p); do wait "$job" || status=1; done
for log in "${logs[@]}"; do
  if [ "$status" -ne 0 ]; then cat "$log"; else grep -E '^\[==========\] [0-9]+ tests? from|^\[  (PASSED|SKIPPED) +\] [0-9]+ test' "$log"; fi
done
exit $status

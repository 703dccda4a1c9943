#!/usr/bin/env bash
# Runs every libFuzzer target of a DMO_FUZZ build for SECONDS each, two
# processes at a time (DMO_FUZZ_JOBS=N for N; a fuzzer uses one core), on
# a corpus built here: the seeds dmo_fuzz_seeds makes,
# plus the shared models (those up to 64 KiB, so that executions stay fast)
# and the negative files when ../shared (or $DMO_SHARED_DIR) is present.
# Fails when a target finds anything (crash, sanitizer report, leak, input
# slower than 1 s, more than 2 GiB); the input is kept in BUILD_DIR/fuzz-findings.
#
#   scripts/run-fuzz.sh BUILD_DIR SECONDS [TARGET...]   (TARGET: tflite_reader, plan_file, ...)
#
# DMO_FUZZ_RUNS=N stops each target after N executions instead (with
# SECONDS as the limit still). The corpus grows in BUILD_DIR/fuzz-corpus
# across runs; each target's log is BUILD_DIR/fuzz-logs/<target>.log.
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 BUILD_DIR SECONDS [TARGET...]" >&2
  exit 2
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "$1" && pwd)"
seconds="$2"
shift 2
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(tflite_reader round_trip plan_file offline_plan lackey_trace)
shared="${DMO_SHARED_DIR:-$root/../shared}"

seeds="$build/fuzz-seeds"
rm -rf "$seeds"
"$build/fuzz/dmo_fuzz_seeds" "$seeds"
if [ -d "$shared/models" ]; then
  for target in tflite_reader round_trip; do
    find "$shared/models" -maxdepth 2 -name '*.tflite' -size -65537c -exec cp -t "$seeds/$target" {} +
  done
else
  echo "run-fuzz: $shared/models not found: seeds from dmo's own models only" >&2
fi

mkdir -p "$build/fuzz-corpus" "$build/fuzz-logs" "$build/fuzz-findings"

# An input reported as a timeout is run again alone: on a machine shared
# with compilers a fast input can miss the 1 s limit while the fuzzer is
# descheduled. Only an input that is slow again is a finding; otherwise
# the target goes on fuzzing for the time (and executions) left.
slow_again() {
  "$1" -timeout=1 -runs=3 "$2" >>"$3" 2>&1 && return 1
  return 0
}

# Fuzzes one target; prints its summary line and writes ok or FAILED to
# fuzz-logs/<target>.result.
fuzz_target() {
  local target="$1" dict binary corpus log start runs result left part finished done_now cov_now cov="" artifact
  local args=()
  case "$target" in
    tflite_reader | round_trip) dict="$root/fuzz/tflite.dict" ;;
    plan_file | lackey_trace) dict="$root/fuzz/$target.dict" ;;
    *) dict="" ;;
  esac
  binary="$build/fuzz/fuzz_$target"
  corpus="$build/fuzz-corpus/$target"
  mkdir -p "$corpus"
  log="$build/fuzz-logs/$target.log"
  : >"$log"
  start=$(date +%s)
  runs=0
  result=ok
  while :; do
    left=$((seconds - ($(date +%s) - start)))
    [ "$left" -gt 0 ] || break
    args=(-max_total_time="$left" -timeout=1 -rss_limit_mb=2048 -malloc_limit_mb=2048 -print_final_stats=1
          -artifact_prefix="$build/fuzz-findings/$target-")
    [ -z "$dict" ] || args+=(-dict="$dict")
    if [ -n "${DMO_FUZZ_RUNS:-}" ]; then
      [ "$runs" -lt "$DMO_FUZZ_RUNS" ] || break
      args+=(-runs=$((DMO_FUZZ_RUNS - runs)))
    fi
    part="$build/fuzz-logs/$target.part.log"
    if "$binary" "${args[@]}" "$corpus" "$seeds/$target" >"$part" 2>&1; then finished=1; else finished=0; fi
    cat "$part" >>"$log"
    done_now=$(sed -n 's/^stat::number_of_executed_units: *//p' "$part" | tail -1 || true)
    runs=$((runs + ${done_now:-0}))
    cov_now=$(grep -o 'cov: [0-9]*' "$part" | tail -1 | cut -d' ' -f2 || true)
    cov=${cov_now:-$cov}
    [ "$finished" = 1 ] && break
    artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$part" | tail -1)
    if grep -q 'SUMMARY: libFuzzer: timeout' "$part" && [ -n "$artifact" ] && ! slow_again "$binary" "$artifact" "$log"; then
      echo "fuzz_$target: $(basename "$artifact") ran under 1 s alone (the machine was busy): fuzzing on" | tee -a "$log"
      rm -f "$artifact"
      continue
    fi
    result=FAILED
    break
  done
  rm -f "$build/fuzz-logs/$target.part.log"
  echo "$result" >"$build/fuzz-logs/$target.result"
  echo "fuzz_$target: $result, $runs executions, cov ${cov:-?}, $(($(date +%s) - start)) s"
}

jobs_at_once="${DMO_FUZZ_JOBS:-2}"
rm -f "$build"/fuzz-logs/*.result
for target in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_at_once" ]; do wait -n || true; done
  fuzz_target "$target" &
done
wait

status=0
for target in "${targets[@]}"; do
  if [ "$(cat "$build/fuzz-logs/$target.result" 2>/dev/null)" != ok ]; then
    status=1
    echo "fuzz_$target failed; the end of its log:"
    tail -n 40 "$build/fuzz-logs/$target.log"
  fi
done
exit $status

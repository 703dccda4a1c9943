#!/usr/bin/env bash
# Speed of the bottom-up O_s (dmo trace): how long tracing the largest layer
# of tiny_vww_96_int8 (op 2, CONV_2D, 36864 output bytes) takes under
# valgrind, and how fast dmo reads a lackey trace on its own (a log saved to
# a file, read back with --log), in memory events per second.
#   bench/trace_bench.sh [BUILD_DIR]   (default build; needs valgrind and ../shared)
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")/.." && pwd)
model=${DMO_SHARED_DIR:-$here/../shared}/models/tiny_vww_96_int8.tflite
dmo=$build/dmo
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

seconds() {
  local start end
  start=$(date +%s.%N)
  "$@" >"$tmp/out" 2>"$tmp/err"
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }'
}

echo "== the largest layer of tiny_vww_96_int8 (op 2, CONV_2D)"
for mode in "" "--no-prefix" "--novec --no-prefix"; do
  t=$(seconds "$dmo" trace --json --model "$model" --op 2 $mode)
  events=$(grep -o '"memory_events": [0-9]*' "$tmp/out" | grep -o '[0-9]*$')
  os=$(grep -o '"safe_overlap_bytes": [0-9]*' "$tmp/out" | grep -o '[0-9]*$')
  echo "dmo trace --op 2 ${mode:-(ops 0 and 1 run first)}: ${t} s, ${events} memory events traced, O_s ${os}"
done

echo "== reading a saved trace (no valgrind running)"
valgrind --tool=lackey --trace-mem=yes --log-file="$tmp/lackey.log" \
  "$build/dmo_op_harness" --no-prefix --model "$model" --op 2 >/dev/null 2>&1
bytes=$(stat -c %s "$tmp/lackey.log")
t=$(seconds "$dmo" trace --json --log "$tmp/lackey.log")
events=$(grep -o '"memory_events": [0-9]*' "$tmp/out" | grep -o '[0-9]*$')
lines=$(grep -o '"lines": [0-9]*' "$tmp/out" | grep -o '[0-9]*$')
awk -v b="$bytes" -v l="$lines" -v e="$events" -v t="$t" \
  'BEGIN { printf "dmo trace --log: %d bytes, %d lines, %d memory events in %.2f s: %.0f events/s, %.0f lines/s\n", b, l, e, t, e / t, l / t }'

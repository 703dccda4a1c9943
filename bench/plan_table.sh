#!/usr/bin/env bash
# Prints the README's table of arena figures: `dmo plan --json --split none`
# (every op whole, as TFLM runs it; algorithmic overlaps, 16-byte alignment,
# any kernel walk) on every model in ../shared/models (or the
# directory given) and on zoo models.
set -euo pipefail
cd "$(dirname "$0")/.."
dmo=${DMO:-build/dmo}
models=${1:-../shared/models}
echo "| model | naive | tflm_greedy | lower_bound | dmo, no overlap | bound with overlap | dmo | ops walking descending | dmo, ascending only (TFLM) | saving vs TFLM |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for m in "$models"/*.tflite mobilenet_v1_0.25_128_int8 mobilenet_v2_1.0_224_float32; do
  # A model dmo cannot plan stops the script with dmo's own message.
  "$dmo" plan --json --split none "$m" | python3 -c '
import json, sys, os
j = json.load(sys.stdin)
name = os.path.basename(j["model"]).removesuffix(".tflite")
keys = ("naive_bytes", "tflm_greedy_bytes", "lower_bound_bytes", "dmo_no_overlap_bytes",
        "lower_bound_overlap_bytes", "dmo_bytes")
row = ([name] + [format(j[k], ",") for k in keys] + [str(len(j["descending_ops"])), format(j["dmo_ascending_bytes"], ",")]
       + [format(j["saving_vs_tflm_percent"], ".1f") + "%"])
print("| " + " | ".join(row) + " |")'
done

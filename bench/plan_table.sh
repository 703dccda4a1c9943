#!/usr/bin/env bash
# Prints the README's table of reference figures: `dmo plan --json` on every
# model in ../shared/models (or the directory given) and on the default zoo model.
set -euo pipefail
cd "$(dirname "$0")/.."
dmo=${DMO:-build/dmo}
models=${1:-../shared/models}
echo "| model | naive | tflm_greedy | lower_bound |"
echo "|---|---:|---:|---:|"
for m in "$models"/*.tflite mobilenet_v1_0.25_128_int8 mobilenet_v2_1.0_224_float32; do
  "$dmo" plan --json "$m" | python3 -c '
import json, sys, os
j = json.load(sys.stdin)
name = os.path.basename(j["model"]).removesuffix(".tflite")
row = [name] + [format(j[k], ",") for k in ("naive_bytes", "tflm_greedy_bytes", "lower_bound_bytes")]
print("| " + " | ".join(row) + " |")'
done

#!/usr/bin/env bash
# Instructions per inference of `dmo codegen`'s generated code on an
# emulated Cortex-M (QEMU, -icount shift=0; `make bench` in the project),
# with the outputs hash and RAM, for the models given (default: the five
# of the device comparison, from ../shared/models, or the zoo's default
# model when that directory is absent). A benchmark, not a test: it prints.
#   bench/device_bench.sh [--target cortex-m4|cortex-m7] [--split none|auto] [MODEL...]
set -euo pipefail
cd "$(dirname "$0")/.."
dmo=${DMO:-build/dmo}
target=cortex-m4
split=()
while [ $# -gt 0 ]; do
  case "$1" in
    --target) target=$2; shift 2 ;;
    --split) split=(--split "$2"); shift 2 ;;
    *) break ;;
  esac
done
models=("$@")
if [ ${#models[@]} -eq 0 ]; then
  if [ -d ../shared/models ]; then
    for m in tiny_kws_ref_model_int8 tiny_vww_96_int8 tiny_resnet8_int8 tflm_person_detect_int8 tiny_ad01_int8; do
      models+=("../shared/models/$m.tflite")
    done
  else
    models=(mobilenet_v1_0.25_128_int8)
  fi
fi
for tool in arm-none-eabi-g++ qemu-system-arm; do
  command -v "$tool" >/dev/null || { echo "device bench: $tool not found (scripts/install-deps.sh installs it)"; exit 0; }
done
commas() { sed ':a;s/\B[0-9]\{3\}\>/,&/;ta' <<<"$1"; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "| model ($target) | plan | invoke_instructions | arena bytes | kernel scratch bytes | outputs_fnv1a64 | same as dmo run |"
echo "|---|---|---:|---:|---:|---|---|"
for m in "${models[@]}"; do
  name=$(basename "$m" .tflite)
  dir="$work/$name"
  written=$("$dmo" codegen "$m" -o "$dir" --target "$target" "${split[@]}")
  plan=$(grep -o 'ops split --split .*' <<<"$written" | sed 's/ops split //' || true)
  out=$(make -s -C "$dir" bench 2>/dev/null)
  field() { grep -o "$1=[0-9a-f]*" <<<"$out" | cut -d= -f2; }
  want=$("$dmo" run "$m" --seed 1 | grep -o 'outputs_fnv1a64=[0-9a-f]*' | cut -d= -f2)
  same=no
  [ "$(field outputs_fnv1a64)" = "$want" ] && same=yes
  printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$name" "${plan:-whole ops}" \
    "$(commas "$(field invoke_instructions)")" "$(commas "$(field arena_bytes)")" \
    "$(commas "$(field scratch_bytes)")" "$(field outputs_fnv1a64)" "$same"
done

#!/usr/bin/env bash
# Installs the Debian packages dmo builds with (Debian 12 or later).
set -euo pipefail
packages=(g++ cmake make libflatbuffers-dev flatbuffers-compiler libgtest-dev libbenchmark-dev
          libcli11-dev nlohmann-json3-dev libfmt-dev valgrind
          clang libclang-rt-14-dev  # clang and its libFuzzer runtime: the fuzz targets (-DDMO_FUZZ=ON)
          # dmo codegen's Cortex-M images and QEMU to run them (its tests skip without them)
          gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib qemu-system-arm)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)
"${as_root[@]}" apt-get update
DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y --no-install-recommends "${missing[@]}"

#!/usr/bin/env bash
# bench/compile_time.sh - seconds per kernel to compile the example model
# (examples/blocks.lua, 6 kernels), cold (kgen keeps no cache, so every run
# is cold), per backend: comgr in process (gfx90a: the ISA Debian's comgr
# has), clang + lld out of process (gfx1100, gfx942), NVRTC in process
# (sm_90). The sim images are left out (--no-sim): they are host builds.
# Median of 5 runs each. Prints a markdown table.
#   bash bench/compile_time.sh [KGEN]      (default build/kgen)
set -euo pipefail
cd "$(dirname "$0")/.."
kgen=${1:-build/kgen}
model=examples/blocks.lua
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "| backend | arch | kernels | s per model (median of 5) | s per kernel |"
echo "| --- | --- | ---: | ---: | ---: |"
for spec in comgr:gfx90a clang:gfx1100 clang:gfx942 nvrtc:sm_90; do
  compiler=${spec%%:*} arch=${spec##*:}
  times=()
  for i in 1 2 3 4 5; do
    rm -rf "$tmp/out"
    s=$(date +%s.%N)
    "$kgen" --compiler="$compiler" --no-sim --arch "$arch" "$model" -o "$tmp/out" > "$tmp/log" 2>&1
    e=$(date +%s.%N)
    times+=("$(awk -v a="$s" -v b="$e" 'BEGIN { printf "%.3f", b - a }')")
  done
  med=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 3p)
  n=$(grep -c "^blocks_" "$tmp/log")
  awk -v c="$compiler" -v a="$arch" -v n="$n" -v m="$med" \
    'BEGIN { printf "| %s | %s | %d | %.3f | %.3f |\n", c, a, n, m, m / n }'
done

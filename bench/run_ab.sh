#!/usr/bin/env bash
# bench/run_ab.sh - A/B on one GPU in one call: kgbench of the previous main and of
# this main (.bench/kgbench_prev, .bench/kgbench_new), interleaved twice;
# results under $OUT (bench/results/h100_fusion_ab.md).
set -uo pipefail
B=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/ab}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv | tee "$OUT/gpu.txt"
for r in 1 2; do  # prev, new, prev, new
  "$B/kgbench_prev" cuda 200 > "$OUT/prev_$r.jsonl" 2> "$OUT/prev_$r.err"
  "$B/kgbench_new" cuda 200 > "$OUT/new_$r.jsonl" 2> "$OUT/new_$r.err"
done
for f in "$OUT"/*.err; do tail -n 3 "$f"; done
wc -l "$OUT"/*.jsonl

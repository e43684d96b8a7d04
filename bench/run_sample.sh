#!/usr/bin/env bash
# bench/run_sample.sh - on the GPU machine, after `TARGETS="kgbench sample_test"
# bash bench/build.sh`: sample_test on cuda (every draw against float64, 10^5
# draws per setting), then kgbench's sampling rows (top-k 50 with and without
# top-p 0.9, top-p 0.9 alone, 1 and 32 rows), then sample_peers.py in the same
# call.   OUT=... bash .bench/run_sample.sh
set -uo pipefail
B=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/kgbench}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
"$B/sample_test" cuda 100 > "$OUT/sample_test.txt" 2>&1
grep -E "FAIL|^sample " "$OUT/sample_test.txt"
for round in 1 2; do
  "$B/kgbench" cuda 500 top | tee -a "$OUT/kgen.jsonl"
done
PYTHONUNBUFFERED=1 timeout 300 python3 "$B/sample_peers.py" 2>"$OUT/peers.err" |
  tee "$OUT/peers.jsonl"
tail -3 "$OUT/peers.err"

#!/usr/bin/env bash
# bench/run_replay.sh - on the GPU machine, in one device call, after
# bench/build_replay.sh:
#   bash .bench/run_replay.sh        (results under $OUT, the table printed last)
# 1. the 64-step decode loop (test_loop) on cuda, with and without graphs,
#    and on sim:sm_90a: the tokens of kgrt_model_run_steps (read back once)
#    against the host-driven loop (one int per step) and float64;
# 2. replay_bench: 160 small kernels, graph replay against launches one by
#    one, in the same process (the ratio of the same run).
set -uo pipefail
B=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/replay}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem \
  --format=csv | tee "$OUT/gpu.txt"
"$B/test_loop" cuda cuda,graphs=0 sim:sm_90a 2>&1 | tee "$OUT/loop.txt"
"$B/replay_bench" cuda 30 | tee "$OUT/replay.txt"

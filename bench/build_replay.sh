#!/usr/bin/env bash
# bench/build_replay.sh - on the CPU machine: builds into .bench/ (git-ignored)
# what one device call of bench/run_replay.sh needs: replay_bench (graph
# replay against launches one by one, models/replay_160.lua) and test_loop
# (the 64-step decode loop, test/loop/), both for sm_90a through NVRTC, with
# sim images.
#   bash bench/build_replay.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-replay -DKGEN_BENCH=ON -DBUILD_TESTING=ON \
  "-DKGEN_NUMERICS_ARCHES=sm_90a" "-DKGEN_EXAMPLE_ARCHES=sm_90a" \
  "-DKGEN_BENCH_ARCHES=sm_90a" > /dev/null
cmake --build build-replay -j"$(nproc)" --target replay_bench test_loop
mkdir -p .bench
cp build-replay/bench/replay_bench build-replay/test/test_loop bench/run_replay.sh .bench/
du -sh .bench

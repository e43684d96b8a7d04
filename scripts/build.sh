#!/usr/bin/env bash
# build.sh - configures and builds kgen, kgrt, every test and the examples
# in ./build (BUILD_DIR to change). BUILD_TESTING and LLM_SPLIT_TABLES are
# set on, so a folder the main job configured without them builds them.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=ON \
  -DLLM_SPLIT_TABLES=ON >/dev/null
cmake --build "$build" -j "$(nproc)"

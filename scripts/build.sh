#!/usr/bin/env bash
# build.sh - configures and builds kgen, kgrt, the tests and the example in
# ./build (BUILD_DIR to change).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j "$(nproc)"

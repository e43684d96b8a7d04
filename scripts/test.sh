#!/usr/bin/env bash
# test.sh - installs what is needed, builds, and runs every test (lit, unit,
# numerics) through ctest. Tests that need a GPU are skipped with a reason.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
build=${BUILD_DIR:-build}
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"

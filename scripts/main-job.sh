#!/usr/bin/env bash
# main-job.sh - the main job on a fresh Debian 12 machine: installs what is
# needed, builds kgen, generates and compiles examples/blocks.lua for gfx1100
# and gfx942 into out/, then runs the example program on the sim device for
# both arches and checks its outputs against a float64 reference.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
build=${BUILD_DIR:-build}
"$build/kgen" --arch gfx1100,gfx942 examples/blocks.lua -o out
"$build/examples/blocks_demo" sim:gfx1100
"$build/examples/blocks_demo" sim:gfx942

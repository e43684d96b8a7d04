#!/usr/bin/env bash
# main-job.sh - the main job on a fresh Debian 12 machine: installs what is
# needed, builds only what the job runs (kgen, kgrt, the LLM product and its
# table, make_tiny_llama, the blocks example; no tests: BUILD_TESTING=OFF),
# which compiles examples/llm/tiny_llama.lua (a small Llama from
# lua/models/llama.lua) for gfx1100 and gfx942, writes its random weights
# and tokenizer as a GGUF file, and generates text from a prompt on the sim
# device at both arches' wave sizes (examples/llm/llm.c).
# Then the smaller example: examples/blocks.lua against float64. kgen's
# kernel listings go to files (<model>.kernels.txt), the build's lines to
# $build/main-job-build.log (shown when the build fails).
# The build goes to build-main (BUILD_DIR to change); scripts/test.sh builds
# everything in build.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
build=${BUILD_DIR:-build-main}
echo "main-job: building kgen, kgrt, llm and the tiny Llama's table in $build"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=OFF \
  -DLLM_SPLIT_TABLES=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target llm make_tiny_llama blocks_demo kgen \
  >"$build/main-job-build.log" || {
  tail -n 40 "$build/main-job-build.log" >&2
  exit 1
}
mkdir -p out
"$build/test/llama/make_tiny_llama" out/tiny_llama.gguf
for arch in gfx1100 gfx942; do
  "$build/examples/llm/llm" --device "sim:$arch" --prompt "Once upon a time the king" -n 24 \
    out/tiny_llama.gguf
done
"$build/kgen" --arch gfx1100,gfx942 examples/blocks.lua -o out >out/blocks.kernels.txt
"$build/examples/blocks_demo" sim:gfx1100
"$build/examples/blocks_demo" sim:gfx942

#!/usr/bin/env bash
# main-job.sh - the main job on a fresh Debian 12 machine: installs what is
# needed, builds kgen and kgrt, which compiles examples/llm/tiny_llama.lua (a
# small Llama from lua/models/llama.lua) for gfx1100 and gfx942, writes its
# random weights and tokenizer as a GGUF file, and generates text from a
# prompt on the sim device at both arches' wave sizes (examples/llm/llm.c).
# Then the smaller example: examples/blocks.lua against float64.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
build=${BUILD_DIR:-build}
mkdir -p out
"$build/test/make_tiny_llama" out/tiny_llama.gguf
for arch in gfx1100 gfx942; do
  "$build/examples/llm/llm" --device "sim:$arch" --prompt "Once upon a time the king" -n 24 \
    out/tiny_llama.gguf
done
"$build/kgen" --arch gfx1100,gfx942 examples/blocks.lua -o out
"$build/examples/blocks_demo" sim:gfx1100
"$build/examples/blocks_demo" sim:gfx942

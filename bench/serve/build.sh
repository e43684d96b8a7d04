#!/usr/bin/env bash
# bench/serve/build.sh - on the CPU machine: builds into .bench/serve/
# (git-ignored) what one device call of bench/serve/run.sh needs:
# kgen-serve with the batched Llama-3-8B tables of issue 55's bench
# (bench/models/llama3_8b_batch.lua and llama3_8b_q4_0_batch.lua: bf16 and
# Q4_0, sm_90a through NVRTC), bench/llama_gguf (the GGUF files of those shapes
# that bench/run_batch.sh gives llama.cpp too), the load generator, and the
# shared libraries kgen-serve needs beyond glibc (libmicrohttpd, jansson,
# gnutls and theirs: the GPU machine has no Debian packages to install).
#   bash bench/serve/build.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
out=.bench/serve
cmake -S . -B build-serve-h100 -DBUILD_TESTING=OFF -DKGEN_BENCH=ON -DKGEN_EXAMPLE_ARCHES=sm_90a \
  "-DKGEN_SERVE_MODELS=$PWD/bench/models/llama3_8b_batch.lua;$PWD/bench/models/llama3_8b_q4_0_batch.lua" \
  -DKGEN_SERVE_ARCHES=sm_90a > /dev/null
cmake --build build-serve-h100 -j"$(nproc)" --target kgen-serve llama_gguf
mkdir -p "$out/lib"
cp build-serve-h100/serve/kgen-serve build-serve-h100/bench/llama_gguf bench/serve/loadgen.py \
  bench/serve/run.sh bench/serve/report.py "$out/"
# every library kgen-serve loads but libc's own
ldd build-serve-h100/serve/kgen-serve | awk '$3 ~ /^\// {print $3}' |
  grep -Ev '/(libc|libm|libdl|libpthread|librt|ld-linux[^/]*)\.so' |
  while read -r lib; do cp -L "$lib" "$out/lib/"; done
du -sh "$out"

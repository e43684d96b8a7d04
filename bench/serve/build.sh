#!/usr/bin/env bash
# bench/serve/build.sh - on the CPU machine: builds into .bench/serve/
# (git-ignored) what one device call of bench/serve/run.sh needs:
# kgen-serve with the Llama-3-8B tables of bench/serve/ (bf16 and Q4_0,
# sm_90a through NVRTC), make_llama3_gguf, the load generator, and the
# shared libraries kgen-serve needs beyond glibc (libmicrohttpd, jansson,
# gnutls and theirs: the GPU machine has no Debian packages to install).
#   bash bench/serve/build.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
out=.bench/serve
cmake -S . -B build-serve-h100 -DBUILD_TESTING=OFF -DKGEN_EXAMPLE_ARCHES=sm_90a \
  "-DKGEN_SERVE_MODELS=$PWD/bench/serve/llama3_8b_bf16.lua;$PWD/bench/serve/llama3_8b_q4_0.lua" \
  -DKGEN_SERVE_ARCHES=sm_90a > /dev/null
cmake --build build-serve-h100 -j"$(nproc)" --target kgen-serve
mkdir -p "$out/lib"
cc -O2 -Wall -Wextra -Werror -o "$out/make_llama3_gguf" bench/serve/make_llama3_gguf.c
cp build-serve-h100/serve/kgen-serve bench/serve/loadgen.py bench/serve/run.sh \
  bench/serve/report.py "$out/"
# every library kgen-serve loads but libc's own
ldd build-serve-h100/serve/kgen-serve | awk '$3 ~ /^\// {print $3}' |
  grep -Ev '/(libc|libm|libdl|libpthread|librt|ld-linux[^/]*)\.so' |
  while read -r lib; do cp -L "$lib" "$out/lib/"; done
du -sh "$out"

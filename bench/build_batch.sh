#!/usr/bin/env bash
# bench/build_batch.sh - on the CPU machine: builds into .bench/ (git-ignored)
# what one device call of bench/run_batch.sh needs: llama_batch (batched
# decode at Llama-3-8B shapes, bf16 and Q4_0, sm_90a through NVRTC),
# llama_gguf (the same shapes as GGUF files for llama.cpp), the batched test
# Llamas (test_llama_batch_*: continuous batching against float64, batch
# invariance, the device loop) and llama_decode (batch 1, for the
# no-regression line).
#   bash bench/build_batch.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-batch -DKGEN_BENCH=ON -DBUILD_TESTING=ON \
  "-DKGEN_NUMERICS_ARCHES=sm_90a" "-DKGEN_EXAMPLE_ARCHES=sm_90a" \
  "-DKGEN_BENCH_ARCHES=sm_90a" > /dev/null
cmake --build build-batch -j"$(nproc)" --target llama_batch llama_gguf llama_decode \
  test_llama_batch_bf16 test_llama_batch_q8_0 test_llama_batch_q4_k
mkdir -p .bench
cp build-batch/bench/llama_batch build-batch/bench/llama_gguf build-batch/bench/llama_decode \
  build-batch/test/test_llama_batch_bf16 build-batch/test/test_llama_batch_q8_0 \
  build-batch/test/test_llama_batch_q4_k bench/run_batch.sh .bench/
du -sh .bench

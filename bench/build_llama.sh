#!/usr/bin/env bash
# bench/build_llama.sh - on the CPU machine: builds into .bench/ (git-ignored)
# what one device call of bench/run_llama.sh needs: llama_decode (whole
# Llama models at real shapes, sm_90a through NVRTC) and the five test
# Llamas of test/llama and quant_matmul_test built for sm_90a with sim
# images (the float64 checks on the real GPU), llama_tp and test_llama_tp
# (tensor parallel, run by bench/run_tp.sh on two GPUs), and a copy of the
# peer decode scripts.
#   bash bench/build_llama.sh [PEERS_DIR]      (default ../shared/bench)
set -euo pipefail
cd "$(dirname "$0")/.."
peers=${1:-../shared/bench}
cmake -S . -B build-llama -DKGEN_BENCH=ON -DBUILD_TESTING=ON \
  "-DKGEN_NUMERICS_ARCHES=sm_90a" "-DKGEN_EXAMPLE_ARCHES=sm_90a" \
  "-DKGEN_BENCH_ARCHES=sm_90a" > /dev/null
cmake --build build-llama -j"$(nproc)" --target llama_decode llama_hf llama_tp test_llama_bf16 \
  test_llama_f16 test_llama_q8_0 test_llama_q4_k test_llama_q4_0 test_llama_tp quant_matmul_test
mkdir -p .bench
cp build-llama/bench/llama_decode build-llama/bench/llama_hf build-llama/bench/llama_tp \
  build-llama/test/test_llama_bf16 build-llama/test/test_llama_f16 \
  build-llama/test/test_llama_q8_0 build-llama/test/test_llama_q4_k build-llama/test/test_llama_q4_0 \
  build-llama/test/test_llama_tp build-llama/test/numerics/quant_matmul_test \
  bench/run_llama.sh bench/run_llama_ab.sh bench/run_tp.sh \
  bench/hf_logits.py bench/prefill_peers.py .bench/
for p in peer_decode_gptfast.py peer_decode_hf.py; do
  if [ -f "$peers/$p" ]; then cp "$peers/$p" .bench/; fi
done
du -sh .bench

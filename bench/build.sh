#!/usr/bin/env bash
# bench/build.sh - on the CPU machine: builds what one device call needs into
# .bench/ (git-ignored): kgbench and its sm_90a tables, the numerics harness,
# sample_test and blocks_demo built for sm_90a (with sim images, for the
# sim-vs-GPU cross-check), the matmul and quantized-matmul checks, and a
# copy of the peers script.
#   bash bench/build.sh [PEERS_PY]      (default ../shared/bench/peers.py)
set -euo pipefail
cd "$(dirname "$0")/.."
peers=${1:-../shared/bench/peers.py}
cmake -S . -B build-bench -DKGEN_BENCH=ON -DBUILD_TESTING=ON \
  "-DKGEN_NUMERICS_ARCHES=sm_90a" "-DKGEN_EXAMPLE_ARCHES=sm_90a" "-DKGEN_BENCH_ARCHES=sm_90a" > /dev/null
cmake --build build-bench -j"$(nproc)" --target kgbench numerics_f32 numerics_f16 \
  numerics_bf16 sample_test blocks_demo matmul_f32 matmul_f16 matmul_bf16 quant_matmul_test \
  attn_bench attention_f32 attention_f16 attention_bf16
rm -rf .bench && mkdir -p .bench
cp build-bench/bench/kgbench build-bench/test/numerics/numerics_f32 \
  build-bench/test/numerics/numerics_f16 build-bench/test/numerics/numerics_bf16 \
  build-bench/test/numerics/sample_test build-bench/examples/blocks_demo \
  build-bench/test/numerics/matmul_f32 build-bench/test/numerics/matmul_f16 \
  build-bench/test/numerics/matmul_bf16 build-bench/test/numerics/quant_matmul_test \
  build-bench/bench/attn_bench build-bench/test/numerics/attention_f32 \
  build-bench/test/numerics/attention_f16 build-bench/test/numerics/attention_bf16 .bench/
cp bench/report.py bench/run.sh bench/run_attention.sh bench/attention_peers.py .bench/
if [ -f "$peers" ]; then cp "$peers" .bench/peers.py; fi
du -sh .bench

#!/usr/bin/env bash
# bench/build.sh - on the CPU machine: builds what one device call needs into
# .bench/ (git-ignored): kgbench and its sm_90a tables, the numerics harness,
# sample_test and blocks_demo built for sm_90a (with sim images, for the
# sim-vs-GPU cross-check), the matmul and quantized-matmul checks, and a
# copy of the peers script.
#   bash bench/build.sh [PEERS_PY]      (default ../shared/bench/peers.py)
#   TARGETS="kgbench sample_test" bash bench/build.sh   (only those; the
#   copies skip what was not built)
set -euo pipefail
cd "$(dirname "$0")/.."
peers=${1:-../shared/bench/peers.py}
cmake -S . -B build-bench -DKGEN_BENCH=ON -DBUILD_TESTING=ON \
  "-DKGEN_NUMERICS_ARCHES=sm_90a" "-DKGEN_EXAMPLE_ARCHES=sm_90a" "-DKGEN_BENCH_ARCHES=sm_90a" > /dev/null
targets=${TARGETS:-kgbench numerics_f32 numerics_f16 numerics_bf16 sample_test blocks_demo
  matmul_f32 matmul_f16 matmul_bf16 quant_matmul_test attn_bench attention_f32 attention_f16
  attention_bf16}
# shellcheck disable=SC2086
cmake --build build-bench -j"$(nproc)" --target $targets
rm -rf .bench && mkdir -p .bench
for t in $targets; do
  for d in bench test/numerics examples; do
    if [ -x "build-bench/$d/$t" ]; then cp "build-bench/$d/$t" .bench/; fi
  done
done
cp bench/report.py bench/run.sh bench/run_attention.sh bench/attention_peers.py \
  bench/run_sample.sh bench/sample_peers.py .bench/
if [ -f "$peers" ]; then cp "$peers" .bench/peers.py; fi
du -sh .bench

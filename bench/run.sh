#!/usr/bin/env bash
# bench/run.sh - on the GPU machine, in one device call, after bench/build.sh:
#   bash .bench/run.sh          (results under $OUT, the table printed last)
# 1. correctness: blocks_demo on cuda; the whole numerics harness on
#    sim:sm_90a (the sm_90a tables at wave 32) against float64, then on cuda
#    against float64 and against sim's outputs (--agree); sample_test on cuda
#    with 10^5 draws per setting; matmul (bf16 --full: the real sizes at
#    every M) and quantized matmul (--full: GEMV and GEMM, every M) on cuda
#    against float64; 2. kgbench (kgen's kernels, checked then timed);
# 3. the peers (torch eager, torch.compile, copy bandwidth) in the same call;
# 4. the table.
set -uo pipefail
B=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/kgbench}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem \
  --format=csv | tee "$OUT/gpu.txt"
{
  "$B/blocks_demo" cuda 77
  for d in f32 f16 bf16; do "$B/numerics_$d" --agree sim:sm_90a cuda; done
  "$B/sample_test" cuda 100
  "$B/matmul_f32" cuda
  "$B/matmul_f16" cuda
  "$B/matmul_bf16" --full cuda
  "$B/quant_matmul_test" --full cuda
} > "$OUT/correctness.txt" 2>&1
echo "correctness: $(grep -cE '^FAIL' "$OUT/correctness.txt") FAIL lines"
grep -E "^numerics|^matmul|^quant|all outputs|sample_test|FAIL" "$OUT/correctness.txt" | head -40
"$B/kgbench" cuda 200 | tee "$OUT/kgen.jsonl"
if [ -f "$B/peers.py" ]; then
  PYTHONUNBUFFERED=1 timeout 420 python3 "$B/peers.py" > "$OUT/peers.log" 2>&1
  tail -3 "$OUT/peers.log"
fi
python3 "$B/report.py" "$OUT/kgen.jsonl" "$OUT/results.json" | tee "$OUT/table.md"

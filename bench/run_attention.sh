#!/usr/bin/env bash
# bench/run_attention.sh - on the GPU machine, in one device call, after
# bench/build.sh: attention's correctness on cuda (the attention numerics of
# every dtype against float64, and against sim:sm_90a's outputs: the same
# kernels emulated), then attn_bench (kgen, checked then timed) and
# attention_peers.py (SDPA backends, a pure read) in the same call.
#   bash .bench/run_attention.sh     (results under $OUT, the numbers last)
set -uo pipefail
B=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/kgbench}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem \
  --format=csv | tee "$OUT/gpu.txt"
for d in f32 f16 bf16; do "$B/attention_$d" cuda; done > "$OUT/attention_correctness.txt" 2>&1
echo "correctness: $(grep -cE '^FAIL' "$OUT/attention_correctness.txt") FAIL lines, $(grep -c '^ok' "$OUT/attention_correctness.txt") ok"
grep -E "^attention|FAIL" "$OUT/attention_correctness.txt" | head -20
"$B/attn_bench" cuda 100 | tee "$OUT/attention_kgen.jsonl"
PYTHONUNBUFFERED=1 timeout 300 python3 "$B/attention_peers.py" > "$OUT/attention_peers.log" 2>&1
grep -v '"kind"' "$OUT/attention_peers.log" | tail -12

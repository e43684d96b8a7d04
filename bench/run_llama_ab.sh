#!/usr/bin/env bash
# bench/run_llama_ab.sh - on the GPU machine, one device call: the decode of
# whole Llamas by this tree's llama_decode (.bench/llama_decode) against the
# previous main's (.bench/llama_decode_old, copied there by hand from an
# earlier bench/build_llama.sh), alternated, and the gpt-fast-style peer on
# the same shapes, after the five test Llamas against float64 on cuda.
#   bash .bench/run_llama_ab.sh    (results under $OUT)
set -uo pipefail
B=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/ab}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv | tee "$OUT/gpu.txt"
for v in bf16 f16 q8_0 q4_k q4_0; do
  "$B/test_llama_$v" cuda >> "$OUT/correctness.txt" 2>&1
  echo "test_llama_$v cuda: exit $?" | tee -a "$OUT/correctness.txt"
done
grep "checks," "$OUT/correctness.txt"
for round in 1 2; do
  for m in ${MODELS:-llama3_2_1b llama3_8b}; do
    "$B/llama_decode_old" cuda "$m" 2>&1 | tee "$OUT/old_${m}_$round.jsonl"
    "$B/llama_decode" cuda "$m" 2>&1 | tee "$OUT/new_${m}_$round.jsonl"
  done
done
if [ -f "$B/peer_decode_gptfast.py" ] && [ -z "${NO_PEERS:-}" ]; then
  python3 "$B/peer_decode_gptfast.py" llama3.2-1b 2>&1 | grep '^{' | tee "$OUT/peer_gptfast.jsonl"
fi

#!/usr/bin/env bash
# bench/run_llama_ab.sh - on the GPU machine, one device call: the prefill
# of 512 tokens and the decode of whole Llamas by this tree's llama_decode
# (.bench/llama_decode) against the previous main's
# (.bench/llama_decode_old, copied there by hand from an earlier
# bench/build_llama.sh), alternated, and the gpt-fast-style peer on
# the same shapes, after the test Llamas against float64 on cuda (and
# quant_matmul_test, where .bench has one).
#   bash .bench/run_llama_ab.sh    (results under $OUT)
# Environment: TESTS (test Llamas, default "bf16 f16 q8_0 q4_k q4_0"; " " for
# none), MODELS (default "llama3_2_1b llama3_8b"), BINS (the builds, in the
# order run, default "llama_decode_old llama_decode"), ROUNDS (default 2),
# NO_PEERS.
set -uo pipefail
B=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/ab}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv | tee "$OUT/gpu.txt"
tests=${TESTS:-bf16 f16 q8_0 q4_k q4_0}
if [ -x "$B/quant_matmul_test" ] && [ -n "${tests// /}" ]; then
  "$B/quant_matmul_test" cuda > "$OUT/quant_cuda.txt" 2>&1
  echo "quant_matmul_test cuda: exit $?; $(tail -1 "$OUT/quant_cuda.txt")"
fi
for v in $tests; do
  "$B/test_llama_$v" cuda >> "$OUT/correctness.txt" 2>&1
  echo "test_llama_$v cuda: exit $?" | tee -a "$OUT/correctness.txt"
done
grep "checks," "$OUT/correctness.txt" 2>/dev/null
for round in $(seq 1 "${ROUNDS:-2}"); do
  for m in ${MODELS:-llama3_2_1b llama3_8b}; do
    for bin in ${BINS:-llama_decode_old llama_decode}; do
      f="$OUT/${bin}_${m}_$round.jsonl"
      "$B/$bin" cuda "$m" > "$f" 2>&1
      echo "$bin $m round $round: prefill $(grep '"kind": "prefill"' "$f" | grep -o '"us": [0-9.]*')" \
        "$(grep '"kind": "decode"' "$f" |
          grep -o '"tok_s": [0-9.]*\|"frac_roofline": [0-9.]*\|"last_token": [0-9]*' | tr '\n' ' ')"
    done
  done
done
if [ -f "$B/peer_decode_gptfast.py" ] && [ -z "${NO_PEERS:-}" ]; then
  python3 "$B/peer_decode_gptfast.py" llama3.2-1b 2>&1 | grep '^{' | tee "$OUT/peer_gptfast.jsonl"
fi

#!/usr/bin/env bash
# bench/run_llama.sh - on the GPU machine, in one device call, after
# bench/build_llama.sh:
#   bash .bench/run_llama.sh          (results under $OUT, JSON lines)
# 1. the five test Llamas on cuda against float64 (prefill 37, 16 decode
#    steps, then the device loop);
# 2. a 2-layer model at Llama-3-8B shapes written by HF transformers: its
#    logits against HF's own, greedy 32 steps (hf_logits.py, llama_hf);
# 3. llama_decode: copy bandwidth, prefill 512, decode 512 -> 1024, profile;
#    prefill_peers.py: the same prefill's GEMMs (cuBLAS) and attention (SDPA);
# 4. the peers on the same shapes: gpt-fast style (torch.compile + CUDA
#    graphs) and HF transformers eager.
set -uo pipefail
B=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/llama}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem \
  --format=csv | tee "$OUT/gpu.txt"
for v in bf16 f16 q8_0 q4_k q4_0; do
  "$B/test_llama_$v" cuda >> "$OUT/correctness.txt" 2>&1
  echo "test_llama_$v cuda: exit $?" | tee -a "$OUT/correctness.txt"
done
grep "checks," "$OUT/correctness.txt"
python3 "$B/hf_logits.py" /tmp/hf2 2>&1 | tail -2
"$B/llama_hf" cuda /tmp/hf2 2>&1 | tee "$OUT/hf_logits.jsonl"
"$B/llama_decode" cuda ${MODELS:-} 2>&1 | tee "$OUT/kgen.jsonl"
python3 "$B/prefill_peers.py" 2>&1 | grep '^{' | tee "$OUT/prefill_peers.jsonl"
[ -n "${NO_PEERS:-}" ] && exit 0
if [ -f "$B/peer_decode_gptfast.py" ]; then
  python3 "$B/peer_decode_gptfast.py" 2>&1 | grep '^{' | tee "$OUT/peer_gptfast.jsonl"
fi
if [ -f "$B/peer_decode_hf.py" ]; then
  MODES=eager python3 "$B/peer_decode_hf.py" 2>&1 | grep '^{' | tee "$OUT/peer_hf.jsonl"
fi

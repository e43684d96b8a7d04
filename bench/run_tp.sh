#!/usr/bin/env bash
# bench/run_tp.sh - on a GPU machine of two GPUs, one device call: the test
# Llama split over 2 ranks (cuda:0, cuda:1) against the whole model and
# float64 (test_llama_tp; SKIP_TEST=1: not), then llama_tp: Llama-3-8B
# shapes whole on one GPU and split over two (tensor parallel, pipeline),
# prefill of 2048 tokens and decode tokens/s.
# NCCL comes from the image's PyTorch (nvidia-nccl); NVLink multicast off.
#   bash .bench/run_tp.sh    (results under $OUT)
set -uo pipefail
B=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/tp}
mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0
nccl=$(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib"))' 2>/dev/null)
if [ -n "$nccl" ] && [ -f "$nccl/libnccl.so.2" ]; then
  export LD_LIBRARY_PATH="$nccl${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
echo "libnccl: ${nccl:-not found in the Python packages}" | tee "$OUT/gpu.txt"
nvidia-smi --query-gpu=name,driver_version --format=csv | tee -a "$OUT/gpu.txt"
nvidia-smi topo -m >> "$OUT/gpu.txt" 2>&1
if [ "${SKIP_TEST:-0}" != 1 ]; then
  "$B/test_llama_tp" --ranks 2 cuda > "$OUT/correctness.txt" 2>&1
  echo "test_llama_tp --ranks 2 cuda: exit $?" | tee -a "$OUT/correctness.txt"
  tail -3 "$OUT/correctness.txt"
fi
# ROUNDS (default 2) runs of llama_tp; TAG names their files (an NCCL_*
# setting tried in the environment, say); OPTS follows each device spec
# (",symmetric=0": the arena is no NCCL window)
for round in $(seq "${ROUNDS:-2}"); do
  "$B/llama_tp" "cuda:0${OPTS:-}" "cuda:1${OPTS:-}" 2>&1 | tee "$OUT/llama_tp${TAG:+_$TAG}_$round.jsonl"
  echo "llama_tp round $round: exit $?"
done

#!/usr/bin/env bash
# bench/sweep_tp.sh - on a GPU machine of two GPUs, one device call:
# llama_tp (no pipeline) under NCCL settings or device options, one run each;
# CONFIGS: lines "TAG|OPTS|ENV ...|BIN": OPTS follows each device spec
# (",ctas=0"), ENV (NCCL_MIN_CTAS=32 ...) is set for that run, BIN is the
# binary in .bench (default llama_tp: another build, for an A/B). Prints
# each run's whole and tp lines, ratios, all_reduce and decode attention sums.
#   CONFIGS=$'a||\nb|,ctas=0|' OUT=$OUT bash .bench/sweep_tp.sh
set -uo pipefail
B=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/tp}
mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0 LLAMA_TP_NO_PP=1
nccl=$(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib"))' 2>/dev/null)
export LD_LIBRARY_PATH="$nccl${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvidia-smi --query-gpu=name,driver_version --format=csv > "$OUT/gpu.txt"
while IFS='|' read -r tag opts envs bin; do
  [ -z "$tag" ] && continue
  start=$(date +%s)
  env $envs "$B/${bin:-llama_tp}" "cuda:0$opts" "cuda:1$opts" > "$OUT/sw_$tag.jsonl" 2>&1
  rc=$?
  echo "== $tag ($opts; $envs) rc=$rc $(( $(date +%s) - start ))s"
  grep -E '"kind": "(whole|tp|tp_ratio|tp_tokens)"' "$OUT/sw_$tag.jsonl"
  grep -E 'all_reduce|attention_decode' "$OUT/sw_$tag.jsonl" | head -8
done <<< "$CONFIGS"

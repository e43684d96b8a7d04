#!/usr/bin/env bash
# bench/run_batch.sh - on the GPU machine, after bench/build_batch.sh, in
# one device call (results under $OUT, JSON lines and llama.cpp's tables):
#   bash .bench/run_batch.sh [check|gguf|kgen|decode1|peer]...   (default all)
#   check    the batched test Llamas on cuda against float64 (and batch
#            invariance, the device loop)
#   gguf     the random-weight GGUF files at Llama-3-8B shapes, bf16 and
#            Q4_0 (llama_gguf), in $GGUF_DIR (default /tmp)
#   kgen     llama_batch: copy bandwidth, prefill, decode at 1 to 128
#            sequences, profiles
#   prev     the same of an earlier build (.bench/llama_batch_prev, for an
#            A/B in one call), when it is there
#   decode1  llama_decode llama3_8b: batch 1, for the no-regression line
#   peer     llama.cpp's llama-batched-bench on the same files, when
#            $LLAMA_CPP_BIN holds it: -npp 512 -ntg 128 -npl 1,8,32,64,128,
#            flash attention, every layer on the GPU (peer_bf16, peer_q4_0:
#            one of them)
set -uo pipefail
B=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/batch}
GGUF_DIR=${GGUF_DIR:-/tmp}
mkdir -p "$OUT"
parts=${*:-check gguf kgen decode1 peer}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem \
  --format=csv | tee "$OUT/gpu.txt"
for p in $parts; do
  case $p in
  check)
    for v in bf16 q8_0 q4_k; do
      "$B/test_llama_batch_$v" cuda > "$OUT/check_$v.txt" 2>&1
      echo "test_llama_batch_$v cuda: exit $? ($(tail -1 "$OUT/check_$v.txt"))"
    done ;;
  gguf)
    "$B/llama_gguf" bf16 "$GGUF_DIR/llama3_8b_bf16.gguf"
    "$B/llama_gguf" q4_0 "$GGUF_DIR/llama3_8b_q4_0.gguf" ;;
  kgen)
    "$B/llama_batch" cuda 2>&1 | tee "$OUT/kgen.jsonl" | grep -v profile_kernel ;;
  prev)
    if [ ! -x "$B/llama_batch_prev" ]; then echo "prev: no $B/llama_batch_prev"; continue; fi
    "$B/llama_batch_prev" cuda 2>&1 | tee "$OUT/prev.jsonl" | grep -v profile_kernel ;;
  decode1)
    "$B/llama_decode" cuda llama3_8b 2>&1 | grep -v profile | tee "$OUT/decode1.jsonl" ;;
  peer | peer_bf16 | peer_q4_0)
    bb=${LLAMA_CPP_BIN:-}/llama-batched-bench
    if [ ! -x "$bb" ]; then echo "peer: no $bb"; continue; fi
    fmts="bf16 q4_0"
    [ "$p" = peer ] || fmts=${p#peer_}
    for f in $fmts; do
      "$bb" -m "$GGUF_DIR/llama3_8b_$f.gguf" -c 90112 -b 2048 -ub 512 -npp 512 -ntg 128 \
        -npl 1,8,32,64,128 -fa on -ngl 99 2>&1 | tee "$OUT/peer_$f.txt" | grep '^|'
    done ;;
  esac
done

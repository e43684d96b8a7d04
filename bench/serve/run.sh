#!/usr/bin/env bash
# bench/serve/run.sh - on the GPU machine (one device call; what
# bench/serve/build.sh put in .bench/serve/, carried): for each format
# (FORMATS, default "bf16 q4_0") writes a Llama-3-8B-shaped GGUF file with
# random weights (bench/llama_gguf, unless $MODELS_DIR has it already, as
# bench/run_batch.sh leaves it in /tmp), serves it with
# kgen-serve on cuda (64 sequences, steps of up to 512 tokens, no prefix
# cache: the prompts are random) and, where LLAMA_SERVER names llama.cpp's
# llama-server (built there from a snapshot of its source), with it on the
# same file (64 slots, flash attention, all layers on the GPU); each at
# CONCURRENCY streams (default "1 16 64") of 512-token prompts and 128
# generated tokens (loadgen.py). One JSON line per run into
# $OUT/serve.jsonl (OUT: the device call's folder, or the first argument),
# the servers' logs beside it, and the table report.py makes of them.
#   LLAMA_SERVER=/path/llama-server bash .bench/serve/run.sh [OUT]
# SERVERS="kgen" or "llama" runs one of them (default both), so that one
# call can measure kgen-serve while llama-server is still being built.
# (PROMPT, OUTPUT, VOCAB, DEVICE, TABLE, MAX_SEQS, MODELS_DIR, KGEN_ARGS (more
# kgen-serve flags: --step-tokens N, say) and LLAMA_ARGS change
# the rest: the smoke test on the CPU machine runs it on the tiny model.)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-${OUT:?give OUT or an argument}}
mkdir -p "$out"
export LD_LIBRARY_PATH=$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
models=${MODELS_DIR:-/tmp}
mkdir -p "$models"
formats=${FORMATS:-bf16 q4_0}
concurrency=${CONCURRENCY:-1 16 64}
prompt=${PROMPT:-512} output=${OUTPUT:-128} vocab=${VOCAB:-128256}
device=${DEVICE:-cuda}
llama_args=${LLAMA_ARGS:--ngl 99 -fa on -np 64 --cont-batching}
servers=${SERVERS:-kgen llama}
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/gpu.txt"

# wait_up URL PID LOG: until /health answers 200 (10 minutes at most)
wait_up() {
  for _ in $(seq 1200); do
    if ! kill -0 "$2" 2> /dev/null; then
      echo "the server exited:"; tail -20 "$3"; return 1
    fi
    if python3 -c "import urllib.request,sys; sys.exit(urllib.request.urlopen('$1/health', timeout=2).status != 200)" 2> /dev/null; then
      return 0
    fi
    sleep 0.5
  done
  echo "the server did not come up"; tail -20 "$3"; return 1
}

# measure NAME URL: a warm-up, then each concurrency, each with prompts of
# its own (a seed each: no run's prompts are in a prompt cache yet); a
# loadgen that fails (a server that went away) is said, and the rest go on
measure() {
  python3 "$here/loadgen.py" "$2" --concurrency 4 --requests 4 --prompt "$prompt" \
    --output 8 --vocab "$vocab" --seed 1 --label "warm-up" > /dev/null || echo "$1: warm-up failed"
  for c in $concurrency; do
    python3 "$here/loadgen.py" "$2" --concurrency "$c" --prompt "$prompt" --output "$output" \
      --vocab "$vocab" --seed $((1000 + c)) --label "$1" | tee -a "$out/serve.jsonl" ||
      echo "$1: $c streams failed"
  done
}

for fmt in $formats; do
  gguf=$models/llama3_8b_$fmt.gguf
  [ -f "$gguf" ] || "$here/llama_gguf" "$fmt" "$gguf"
  table=llama3_8b_batch
  [ "$fmt" = bf16 ] || table=llama3_8b_${fmt}_batch
  if [[ " $servers " == *" kgen "* ]]; then
    # shellcheck disable=SC2086
    "$here/kgen-serve" --model "$gguf" --table "${TABLE:-$table}" --device "$device" --port 18080 \
      --max-sequences "${MAX_SEQS:-64}" --max-queue 1024 --prefix-cache 0 ${KGEN_ARGS:-} \
      > "$out/kgen_$fmt.log" 2>&1 &
    pid=$!
    wait_up http://127.0.0.1:18080 $pid "$out/kgen_$fmt.log"
    measure "kgen-serve $fmt" http://127.0.0.1:18080
    curl -s http://127.0.0.1:18080/metrics > "$out/kgen_${fmt}_metrics.txt" || true
    kill -TERM $pid
    wait $pid || echo "kgen-serve exited $?"
  fi
  if [ -n "${LLAMA_SERVER:-}" ] && [[ " $servers " == *" llama "* ]]; then
    # a context of 64 slots x (prompt + output + room)
    # shellcheck disable=SC2086
    "$LLAMA_SERVER" -m "$gguf" $llama_args -c $((64 * (prompt + output + 64))) \
      --port 18081 > "$out/llama_$fmt.log" 2>&1 &
    pid=$!
    wait_up http://127.0.0.1:18081 $pid "$out/llama_$fmt.log"
    measure "llama-server $fmt" http://127.0.0.1:18081
    kill -TERM $pid
    wait $pid || true
  fi
done
python3 "$here/report.py" "$out/serve.jsonl" | tee "$out/serve.md"

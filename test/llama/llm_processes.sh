#!/usr/bin/env bash
# llm_processes.sh LLM MODEL ARCH LOG - the tiny Llama split over two ranks
# that are processes, as torchrun starts them (WORLD_SIZE, RANK and the id in
# KGRT_COMM_ID): tp 2 and pp 2 give rank 0 the text the in-process --tp 2 and
# --pp 2 give (the same sums in the same order); an id missing, a rank out of
# the world and a world --tp disagrees with are one-line errors; a rank that
# never joins (its model file missing) makes rank 0 fail at the timeout, and
# a rank killed mid-run makes it fail at once, each with exit code 1.
set -u
llm=$1 model=$2 arch=$3 log=$4
prompt="Once upon a time the king"
fail() { echo "FAIL: $*"; exit 1; }
ids=()
new_id() { id=$("$llm" --new-comm-id) || fail "llm --new-comm-id"; ids+=("$id"); }
new_id
[ ${#id} -eq 256 ] || fail "an id of ${#id} characters: $id"
for mode in tp pp; do
  want=$("$llm" --device "sim:$arch" --$mode 2 --prompt "$prompt" -n 8 "$model" 2> /dev/null) ||
    fail "--$mode 2 in one process"
  new_id
  WORLD_SIZE=2 RANK=1 KGRT_COMM_ID=$id "$llm" --device "sim:$arch" --$mode 2 \
    --prompt "$prompt" -n 8 "$model" > "$log.r1" 2>&1 &
  r1=$!
  got=$(WORLD_SIZE=2 RANK=0 KGRT_COMM_ID=$id "$llm" --device "sim:$arch" --$mode 2 \
    --prompt "$prompt" -n 8 "$model" 2> "$log.r0") || { cat "$log.r0"; fail "$mode rank 0"; }
  wait $r1 || { cat "$log.r1"; fail "$mode rank 1"; }
  echo "$mode 2, one process: $want"
  echo "$mode 2, two processes: $got"
  [ -n "$want" ] && [ "$want" = "$got" ] || fail "$mode: the texts differ"
  [ ! -s "$log.r1" ] || { cat "$log.r1"; fail "$mode: rank 1 printed"; }
  grep -q "generated 8 tokens" "$log.r0" || fail "$mode: no summary from rank 0"
done
# one-line errors, exit code 1
check_error() { # WANT, then the command
  local want=$1
  shift
  out=$("$@" 2>&1)
  rc=$?
  echo "$out"
  [ $rc -eq 1 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] && echo "$out" | grep -q -- "$want" ||
    fail "expected one line with '$want' and exit 1, got $rc"
}
check_error "set KGRT_COMM_ID" env WORLD_SIZE=2 RANK=0 "$llm" --tokens 1 "$model"
check_error "RANK=2 is not a rank" env WORLD_SIZE=2 RANK=2 KGRT_COMM_ID=$id "$llm" --tokens 1 "$model"
check_error "give --tp 2" env WORLD_SIZE=2 RANK=0 KGRT_COMM_ID=$id "$llm" --tp 3 --tokens 1 "$model"
check_error "not a communicator id" env WORLD_SIZE=2 RANK=0 KGRT_COMM_ID=abc "$llm" --tokens 1 "$model"
check_error "no table built for 3" env SLURM_NTASKS=3 SLURM_PROCID=0 KGRT_COMM_ID=$id "$llm" --tokens 1 "$model"
# rank 1 never joins: rank 0 waits 1.5 s, then fails
new_id
WORLD_SIZE=2 RANK=1 KGRT_COMM_ID=$id "$llm" --device "sim:$arch" --tokens 1 "$model.missing" > /dev/null 2>&1
start=$(date +%s%N)
out=$(WORLD_SIZE=2 RANK=0 KGRT_COMM_ID=$id KGRT_COMM_TIMEOUT_MS=1500 "$llm" --device "sim:$arch" \
  --tokens 1 -n 4 "$model" 2>&1)
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
echo "absent rank: rank 0 exit $rc after $ms ms: $out"
[ $rc -eq 1 ] && echo "$out" | grep -q "ranks absent after 1500 ms: 1" || fail "absent rank"
[ $ms -lt 15000 ] || fail "absent rank: $ms ms"
# rank 1 killed while both generate: rank 0 stops at once
new_id
WORLD_SIZE=2 RANK=1 KGRT_COMM_ID=$id "$llm" --device "sim:$arch" --tokens 1 -n 100000 \
  "$model" > /dev/null 2>&1 &
r1=$!
WORLD_SIZE=2 RANK=0 KGRT_COMM_ID=$id "$llm" --device "sim:$arch" --tokens 1 -n 100000 \
  "$model" > /dev/null 2> "$log.killed" &
r0=$!
for _ in $(seq 100); do # until rank 0 is generating (its first token is out), 10 s at most
  grep -q "on sim" "$log.killed" 2> /dev/null && break
  sleep 0.1
done
sleep 0.5
kill -9 $r1
start=$(date +%s%N)
wait $r0
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
wait $r1 2> /dev/null
echo "killed rank: rank 0 exit $rc $ms ms after the kill: $(tail -1 "$log.killed")"
[ $rc -eq 1 ] && grep -q "rank 1 (pid $r1) ended without leaving" "$log.killed" ||
  fail "killed rank"
[ $ms -lt 5000 ] || fail "killed rank: $ms ms"
# no segment of these ids left behind (an id's bytes 16 to 79: the name)
for i in "${ids[@]}"; do
  name=$(python3 -c "import sys; print(bytes.fromhex(sys.argv[1])[16:80].rstrip(b'\\0').decode())" "$i")
  [ ! -e "/dev/shm/${name#/}" ] || fail "$name left in /dev/shm"
done
echo "ok (${#ids[@]} ids, none left in /dev/shm)"

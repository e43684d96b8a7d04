#!/usr/bin/env bash
# llm_sampling.sh flags|draws LLM MODEL.gguf - llm's sampling flags.
# flags: each bad value (--temp -1, --top-p 1.5, --top-k abc, ...) is one
# line on stderr naming the flag, exit 1, before any file is read.
# draws: on sim:gfx1100, 8 tokens after the same prompt: --temp 0 and
# --top-k 1 at temperature 5 give the greedy (default) tokens; a seed at
# temperature 1 gives the same tokens twice, other tokens than greedy, and
# other tokens than another seed.
set -uo pipefail
mode=$1 exe=$2 model=$3 fails=0 n=0
fail() {
  echo "FAIL: $*"
  fails=$((fails + 1))
}
expect() { # PATTERN ARGS...
  local pat=$1
  shift
  n=$((n + 1))
  local err rc
  err=$("$exe" "$@" --tokens 1 /tmp/kgen_no_such_model.gguf 2>&1 > /dev/null)
  rc=$?
  if [ $rc -ne 1 ] || [ "$(printf '%s\n' "$err" | wc -l)" -ne 1 ] ||
    ! printf '%s' "$err" | grep -q -- "$pat"; then
    fail "$*: exit $rc, '$err' (want exit 1 and one line with '$pat')"
  fi
}
draw() { # NAME ARGS...: the tokens' text into $tmp/NAME, the summary line into $summary
  local name=$1
  shift
  n=$((n + 1))
  "$exe" --device sim:gfx1100 --tokens 1,2,3 -n 8 "$@" "$model" > "$tmp/$name" 2> "$tmp/err" ||
    fail "$*: exit $?: $(cat "$tmp/err")"
  summary=$(tail -n 1 "$tmp/err")
}
same() { cmp -s "$tmp/$1" "$tmp/$2"; }
case $mode in
flags)
  expect "--temp takes a number >= 0" --temp -1
  expect "--temp" --temp nan
  expect "--top-p takes a number in (0, 1\]" --top-p 1.5
  expect "--top-p" --top-p 0
  expect "--top-k takes an integer" --top-k abc
  expect "--top-k" --top-k 1.5
  expect "--min-p takes a number in \[0, 1)" --min-p 1
  expect "--seed takes an integer" --seed -1
  expect "--seed" --seed 4294967296
  ;;
draws)
  tmp=$(mktemp -d /tmp/kgen_llm_sampling_XXXXXX)
  trap 'rm -rf "$tmp"' EXIT
  draw greedy
  echo "greedy: $summary"
  [ -s "$tmp/greedy" ] && printf '%s' "$summary" | grep -q "; greedy$" ||
    fail "the default is not greedy: '$summary'"
  draw t0 --temp 0 --seed 5
  same t0 greedy || fail "--temp 0 is not greedy"
  draw k1 --temp 5 --top-k 1 --seed 3
  same k1 greedy || fail "--top-k 1 at temperature 5 is not greedy"
  draw s1 --temp 1 --seed 1
  echo "seed 1: $summary"
  printf '%s' "$summary" | grep -q "sampled at temperature 1, top-k 0, top-p 1, min-p 0, seed 1$" ||
    fail "the summary does not give the sampling: '$summary'"
  draw s1again --temp 1 --seed 1
  same s1again s1 || fail "seed 1 twice: other tokens"
  same s1 greedy && fail "temperature 1, seed 1: the greedy tokens"
  draw s2 --temp 1 --seed 2
  same s2 s1 && fail "seeds 1 and 2: the same tokens"
  ;;
*)
  echo "usage: llm_sampling.sh flags|draws LLM MODEL.gguf"
  exit 2
  ;;
esac
echo "llm sampling $mode: $n runs, $fails failed"
[ $fails -eq 0 ]

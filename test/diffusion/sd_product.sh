#!/bin/sh
# sd_product.sh SD MAKE_WEIGHTS DIR SPEC - examples/sd's sd_tiny end to end
# on a sim device: random diffusers-layout weight files (make_sd_weights),
# 3 DDIM steps with guidance from the same seed twice (the same PNG bytes)
# and another seed (different bytes), each PNG whole and 16 x 16 RGB
# (check_png.py); a prompt through the hand-made CLIP tokenizer
# (clip_tiny_tokenizer.json) gives the image of its ids; then bad
# arguments and files: one line, exit 1, no image written.
set -eu
sd=$1 make=$2 dir=$3 spec=$4
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$dir" && mkdir -p "$dir"
"$make" "$dir"
sd3() { # 3 steps on the weight files
  "$sd" --device "$spec" --clip "$dir/text_encoder.safetensors" --unet "$dir/unet.safetensors" \
    --vae "$dir/vae.safetensors" --steps 3 "$@"
}
run() { sd3 --tokens 1,5,7,9 "$@"; }
run --seed 1 -o "$dir/a.png"
run --seed 1 -o "$dir/b.png"
run --seed 2 --guidance 3 -o "$dir/c.png"
cmp "$dir/a.png" "$dir/b.png"
if cmp -s "$dir/a.png" "$dir/c.png"; then echo "sd_product: seeds 1 and 2 gave the same image"; exit 1; fi
python3 "$here/check_png.py" "$dir/a.png" 16 16
python3 "$here/check_png.py" "$dir/c.png" 16 16
# "Hello  World!!" is BOS hello</w> world</w> !!</w> EOS, the empty
# negative prompt BOS EOS; both padded with EOS (44)
tok=$here/clip_tiny_tokenizer.json
sd3 --seed 1 --tokenizer "$tok" --prompt "Hello  World!!" --negative "" -o "$dir/p.png"
sd3 --seed 1 --tokens 43,34,41,42,44 --uncond-tokens 43,44 --pad 44 -o "$dir/t.png"
cmp "$dir/p.png" "$dir/t.png"
sd3 --seed 1 --tokenizer "$tok" --prompt "hello world!!" -o "$dir/q.png"
cmp "$dir/p.png" "$dir/q.png"
sd3 --seed 1 --tokenizer "$tok" --prompt "hello world!!" --negative "cat" -o "$dir/n.png"
if cmp -s "$dir/p.png" "$dir/n.png"; then echo "sd_product: --negative changed nothing"; exit 1; fi
# refused: one line on stderr, exit 1, nothing written
refused() {
  out=$1; shift
  if "$@" > "$dir/refused.log" 2>&1; then echo "sd_product: accepted: $*"; exit 1; fi
  if [ "$(wc -l < "$dir/refused.log")" -ne 1 ]; then echo "sd_product: not one line:"; cat "$dir/refused.log"; exit 1; fi
  if [ -e "$out" ]; then echo "sd_product: $out written by: $*"; exit 1; fi
  echo "refused as it should: $(cat "$dir/refused.log")"
}
refused "$dir/x.png" run --steps 0 -o "$dir/x.png"
refused "$dir/x.png" run --tokens 1,2,3,4,5,6,7,8,9 -o "$dir/x.png"
refused "$dir/x.png" run --seed -1 -o "$dir/x.png"
refused "$dir/x.png" run --tokens 1,500 -o "$dir/x.png"
refused "$dir/x.png" sd3 --prompt "a cat" -o "$dir/x.png"
refused "$dir/x.png" sd3 --tokenizer "$tok" --prompt "$(printf 'caf\351')" -o "$dir/x.png"
refused "$dir/x.png" sd3 --tokenizer "$dir/none.json" --prompt "a cat" -o "$dir/x.png"
echo '{}' > "$dir/empty.json"
refused "$dir/x.png" sd3 --tokenizer "$dir/empty.json" --prompt "a cat" -o "$dir/x.png"
# a tokenizer of 100 tokens, past the text encoder's 97
python3 -c 'import json, sys; v = {"t%d" % i: i for i in range(98)}; v["<|startoftext|>"] = 98; v["<|endoftext|>"] = 99; json.dump({"model": {"type": "BPE", "end_of_word_suffix": "</w>", "vocab": v, "merges": []}}, open(sys.argv[1], "w"))' "$dir/big.json"
refused "$dir/x.png" sd3 --tokenizer "$dir/big.json" --prompt "a cat" -o "$dir/x.png"
refused "$dir/x.png" "$sd" --device "$spec" --clip "$dir/none.safetensors" \
  --unet "$dir/unet.safetensors" --vae "$dir/vae.safetensors" --tokens 1 -o "$dir/x.png"
echo "sd_product: ok"

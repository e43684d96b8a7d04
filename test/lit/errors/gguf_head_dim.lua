-- gguf_config: a head's size from attention.key_length, else hidden / heads
-- (as llama.cpp reads it); values of another size, or RoPE over part of a
-- head (rope.dimension_count), are refused at the call.
-- RUN: rm -rf %t; %kgen --arch gfx1100 --define case=kv %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck %s --check-prefix=KV < %t.log
-- RUN: rm -rf %t; %kgen --arch gfx1100 --define case=rope %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: FileCheck %s --check-prefix=ROPE < %t.log
-- RUN: rm -rf %t; %kgen --arch gfx1100 --define case=ropeonly %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: FileCheck %s --check-prefix=ROPEONLY < %t.log
-- RUN: %kgen --arch gfx1100 --define case=ok %s -o /dev/null --emit=meta 2>&1 | FileCheck %s --check-prefix=OK
local llama = require "models.llama"
local case = define("case")
local meta = { ["general.architecture"] = "llama", ["llama.embedding_length"] = 256,
  ["llama.block_count"] = 1, ["llama.attention.head_count"] = 4,
  ["llama.attention.head_count_kv"] = 2, ["llama.feed_forward_length"] = 512,
  ["llama.context_length"] = 128 }
local tensors = { ["token_embd.weight"] = { shape = { 1000, 256 }, dtype = "f32" },
  ["blk.0.attn_norm.weight"] = { shape = { 256 }, dtype = "f32" } }
for _, k in ipairs({ "attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down" }) do
  tensors["blk.0." .. k .. ".weight"] = { shape = { 1, 1 }, dtype = "f32" }
end
if case == "kv" then
  meta["llama.attention.key_length"], meta["llama.attention.value_length"] = 64, 32
elseif case == "rope" then
  meta["llama.attention.key_length"], meta["llama.rope.dimension_count"] = 64, 32
elseif case == "ropeonly" then
  meta["llama.rope.dimension_count"] = 32 -- hidden / heads is 64
else
  meta["llama.attention.key_length"], meta["llama.rope.dimension_count"] = 64, 64
end
-- KV: gguf_head_dim.lua:[[@LINE+3]]: error: llama: gguf_config: llama.attention.value_length 32 is not the key size 64: kgen's attention takes one head size
-- ROPE: gguf_head_dim.lua:[[@LINE+2]]: error: llama: gguf_config: llama.rope.dimension_count 32 is not the head size 64: RoPE over part of a head is not supported
-- ROPEONLY: gguf_head_dim.lua:[[@LINE+1]]: error: llama: gguf_config: llama.rope.dimension_count 32 is not the head size 64
local cfg = llama.gguf_config({ format = "gguf", meta = meta, tensors = tensors })
-- OK: head_dim 64
print("head_dim " .. cfg.head_dim)
output("y", exp(input("x", f32, { 4, 64 })))

-- paged_attention: decode_tokens is a count sym of at most a token and a
-- sequence each.
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 --define bad=plain %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck --check-prefix=PLAIN %s < %t.log
-- RUN: rm -rf %t; timeout 5 %kgen --arch gfx1100 --define bad=max %s -o %t > %t.log 2>&1; test $? -eq 1
-- RUN: test ! -e %t && test $(wc -l < %t.log) -eq 1
-- RUN: FileCheck --check-prefix=MAX %s < %t.log
local T, B, Q = sym("T", 64), sym("B", 8), sym("Q", 64)
local D = define("bad") == "plain" and sym("D", 8) or sym("D", 9, { count = true })
local q = input("q", f16, { T, 8, 64 })
local pos, seq = input("pos", i32, { T }), input("seq", i32, { T })
local ctx = input("ctx", i32, { B })
local kc = input("kc", f16, { 1, 2, 256, 64 })
local bt = input("bt", i32, { B, 16 })
-- PLAIN: paged_attention_decode_tokens.lua:[[@LINE+2]]: error: paged_attention: attribute decode_tokens must be a count sym (sym(name, max, {count = true}))
-- MAX: paged_attention_decode_tokens.lua:[[@LINE+1]]: error: paged_attention: decode_tokens can reach 9, past the 64 tokens or 8 sequences of a step
output("y", paged_attention(q, kc, kc, pos, seq, ctx, bt, { block_size = 16, seq_tokens = Q, decode_tokens = D }))

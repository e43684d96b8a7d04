-- decode.lua - the smallest decoder whose sampled token feeds the next step:
-- one layer, one head, a KV cache kept as state (kv_append updates the
-- inputs kc and vc in place, so the table marks them KGRT_TENSOR_STATE), the
-- context S a sym the loop advances, greedy sampling (argmax). test_loop.c
-- drives it from the host and from the device (kgrt_model_run_steps) and
-- wants the same tokens.
local S = sym("S", 128) -- the context: this step's position + 1
local V, D, SLOTS = 64, 32, 128
local token = input("token", i32, { 1, 1 })
local pos = input("pos", i32, { 1 })
local kc = input("kc", f32, { 1, 1, SLOTS, D })
local vc = input("vc", f32, { 1, 1, SLOTS, D })
local p = embedding(weight("ep", f32, { SLOTS, D }), pos) -- [1, D]: the position's
local q = embedding(weight("eq", f32, { V, D }), token) + p -- [1, 1, D]
local k = embedding(weight("ek", f32, { V, D }), token)
local v = embedding(weight("ev", f32, { V, D }), token) + p
kc = kv_append(kc, k, pos, { layer = 0 })
vc = kv_append(vc, v, pos, { layer = 0 })
local a = attention(q, kc, vc, { layer = 0, context = S, causal = true })
local logits = matmul(a, weight("wo", f32, { V, D })) -- [1, 1, V]
output("next_token", argmax(logits)) -- [1, 1] i32
-- i32 has no arithmetic of its own: pos + 1 through f32 (exact below 2^24)
output("next_pos", cast(affine(cast(pos, f32), { mul = 1, add = 1 }), i32))

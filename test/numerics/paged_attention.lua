-- paged_attention.lua - paged_attention (lua/ops/attention.lua) for
-- paged_attention_test.c: a batch of up to 32 sequences, T tokens in all,
-- at most Q of one sequence (the plan's decode path at Q <= 16 / G), over
-- two paged KV pools that kv_append fills with this step's keys at their
-- slots in the same plan. The second case takes decode_tokens D (the first
-- D tokens, one-token sequences, on the decode path beside a prefill).
-- --define dtype=f16|bf16.
local dt = ({ f16 = f16, bf16 = bf16 })[define("dtype", "f16")]
local T, B, Q = sym("T", 160), sym("B", 32), sym("Q", 160)
local D = sym("D", 32, { count = true })
-- case: heads, KV heads, head dim, pool layers and blocks, block size,
-- the block table's blocks a sequence, the layer, a window (0: none)
local cases = {
  { h = 8, kvh = 2, d = 64, layers = 2, blocks = 600, bs = 16, maxb = 24, layer = 1, window = 0 },
  { h = 32, kvh = 8, d = 128, layers = 1, blocks = 300, bs = 32, maxb = 12, layer = 0, window = 48 },
}
for i, c in ipairs(cases) do
  local n = "c" .. (i - 1) .. "_"
  local pool = { c.layers, c.kvh, c.blocks * c.bs, c.d }
  local kc = input(n .. "kc", dt, pool)
  local vc = input(n .. "vc", dt, pool)
  local slots = input(n .. "slots", i32, { T })
  kc = kv_append(kc, input(n .. "kn", dt, { T, c.kvh, c.d }), slots, { layer = c.layer })
  vc = kv_append(vc, input(n .. "vn", dt, { T, c.kvh, c.d }), slots, { layer = c.layer })
  local y = paged_attention(input(n .. "q", dt, { T, c.h, c.d }), kc, vc,
    input(n .. "pos", i32, { T }), input(n .. "seq", i32, { T }), input(n .. "ctx", i32, { B }),
    input(n .. "bt", i32, { B, c.maxb }),
    { layer = c.layer, block_size = c.bs, causal = true, seq_tokens = Q,
      window = c.window > 0 and c.window or nil, decode_tokens = i == 2 and D or nil })
  output(n .. "y", y)
end

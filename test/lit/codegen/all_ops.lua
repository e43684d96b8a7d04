-- every op of the library in one bf16 model: it builds for gfx1100 and gfx942
-- with no kernel using scratch (private segment 0); --list-ops names them.
-- RUN: %kgen --arch gfx1100 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- RUN: %kgen --arch gfx942 --emit=meta %s -o - | FileCheck %s --check-prefix=META
-- RUN: %kgen --list-ops | FileCheck %s --check-prefix=OPS
-- META: .name: all_ops_
-- META-NOT: .private_segment_fixed_size: {{[1-9]}}
-- OPS: exp
-- OPS: gelu_erf
-- OPS: where
-- OPS: argmin
-- OPS: groupnorm
-- OPS: log_softmax
-- OPS: kv_append
-- OPS: scatter_add
-- OPS: argsort
-- OPS: sample
-- OPS: srht
-- OPS: upsample
-- OPS: transpose
-- OPS: concat
local T = sym("T", 64)
local x = input("x", bf16, { T, 1024 })
local r = input("r", bf16, { T, 1024 })
local w = input("w", bf16, { 1024 })
local m = input("m", i32, { T, 1024 })
local y = x
for _, op in ipairs { exp, sqrt, rsqrt, recip, neg, abs, sqr, tanh, sin, cos, sigmoid, relu,
  silu, gelu, gelu_erf } do
  y = op(y)
end
output("u", y)
output("l", log(x))
output("b", min(max(add(sub(mul(div(x, r), w), r), w), x), r))
output("a", affine(scale(x, 0.5), { mul = 2, add = 1 }))
output("cl", clamp(x, { min = -1, max = 1 }))
output("wh", where(m, x, w))
output("f", fill { shape = { T, 8 }, value = 1, dtype = bf16 })
output("ci", cast(cast(x, i32), f16))
for _, op in ipairs { sum, mean, amax, amin, argmax, argmin } do
  output("red_" .. tostring(_), op(x))
end
output("rn", rmsnorm(x, w))
local rn2, h = rmsnorm_residual(x, r, w)
output("rn2", rn2)
output("h", h)
output("ln", layernorm(x, w, w))
local ln2, h2 = layernorm_residual(x, r, w, w)
output("ln2", ln2)
output("h2", h2)
local img = input("img", bf16, { 2, 32, 16, 16 })
output("gn", groupnorm(img, { groups = 8 }))
output("up", upsample(img, { mode = "bilinear" }))
output("tr", transpose(img))
output("cat", concat(img, img, { dim = 2 }))
output("sm", softmax(x, { scale = 0.125, causal = true }))
output("lsm", log_softmax(x))
local q = input("q", bf16, { T, 8, 128 })
local pos = input("pos", i32, { T })
output("rope", rope(q, pos))
local cache = weight("cache", bf16, { 2, 8, 256, 128 })
output("kv", cast(kv_append(cache, q, pos, { layer = 1 }), f32))
local ids = input("ids", i32, { T })

output("emb2", embedding(input("tab", bf16, { 1000, 256 }), ids))
output("g", gather(x, m))
output("sa", scatter_add(x, m, r))
output("as", argsort(x, { descending = true }))
output("tok", sample(x, input("seed", i32, { 1 }), { top_k = 40, top_p = 0.9 }))
output("cs", countsketch(x, { width = 64 }))
output("sr", srht(x, { out = 128 }))

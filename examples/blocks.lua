-- blocks.lua - the pieces of a Llama-style decoder block that are not matrix
-- products, over T rows (tokens) bound at run time:
--   RMSNorm with a weight, a SwiGLU gate silu(gate) * up, a scaled residual
--   add, softmax with a scale, GELU, casts f16 -> f32 / bf16, and RMSNorm
--   without a weight in bf16.
-- Elementwise chains fuse: silu * up * ... + x is one kernel.
local T = sym("T", 256)
local D = 1024

local x = input("x", f16, { T, D })
local gate = input("gate", f16, { T, D })
local up = input("up", f16, { T, D })
local norm_w = weight("norm_w", f16, { D })

local h = rmsnorm(x, norm_w, { eps = 1e-5 })
local ffn = mul(silu(gate), up)
local y = add(x, scale(mul(h, ffn), 0.5))
output("y", y)

output("probs", softmax(cast(y, f32), { scale = 0.125 }))

local g = cast(gelu(x), bf16)
output("gelu_norm", rmsnorm(g, { eps = 1e-6 }))

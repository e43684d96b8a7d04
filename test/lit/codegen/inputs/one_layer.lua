-- One layer of codegen/content_addressed.lua (not a test itself).
local T = sym("T", 64)
local x = input("x", f16, { T, 512 })
local h = rmsnorm(x, weight("n", f16, { 512 }), { eps = 1e-5 })
output("y", x + matmul(h, weight("w", f16, { 512, 512 })))

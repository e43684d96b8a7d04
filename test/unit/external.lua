-- external.lua - test_external.c's model: y = x * w + 1 over rows of 64, T
-- rows a run, so that the caller's memory bound to x and y is read and
-- written in place and a change of T needs the binding again.
local T = sym("T", 8)
local x = input("x", f32, { T, 64 })
local w = weight("w", f32, { 64 })
output("y", affine(mul(x, w), { mul = 1, add = 1 }))

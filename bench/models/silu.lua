-- bench: a unary streaming op, 16384 x 8192 bf16.
local x = input("x", bf16, { 16384, 8192 })
output("y", silu(x))

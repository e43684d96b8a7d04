-- bench: residual add, 16384 x 8192 bf16.
local a = input("a", bf16, { 16384, 8192 })
local b = input("b", bf16, { 16384, 8192 })
output("y", a + b)

-- bench: cast bf16 -> f16, 16384 x 8192.
local x = input("x", bf16, { 16384, 8192 })
output("y", cast(x, f16))

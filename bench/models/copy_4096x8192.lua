-- bench: a bf16 copy kernel (cast to the same dtype), the bandwidth yardstick.
local x = input("x", bf16, { 4096, 8192 })
output("y", cast(x, bf16))

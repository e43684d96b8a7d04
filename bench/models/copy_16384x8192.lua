-- bench: a bf16 copy kernel (cast to the same dtype) at 256 MiB.
local x = input("x", bf16, { 16384, 8192 })
output("y", cast(x, bf16))

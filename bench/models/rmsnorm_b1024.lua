-- bench: RMSNorm with weight, 1024 threads per row, 4096 x 8192 bf16.
local x = input("x", bf16, { 4096, 8192 })
local w = input("w", bf16, { 8192 })
output("y", rmsnorm(x, w, { block = 1024 }))

-- bench: softmax over rows of 8192, 4096 x 8192 bf16.
local x = input("x", bf16, { 4096, 8192 })
output("y", softmax(x))

-- bench: a pure read of the decode's K and V bytes (2 x 8 x 32768 x 128
-- bf16, 128 MiB), as row sums of [8192, 8192]: the decode's floor, timed as
-- it is.
local x = input("x", bf16, { 8192, 8192 })
output("y", sum(x))
